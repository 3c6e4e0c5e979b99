;;; tune-all.scm: a short hill climb on every kernel of a folder, and a
;;; table of what it found.
;;;
;;;   perfdojo script scripts/tune-all.scm [DIR [BUDGET [SEED]]]
;;;
;;; DIR defaults to the examples next to this script's folder; BUDGET
;;; (default 4) is the number of moves tried per kernel: a random legal
;;; move of the best state so far, kept when the C target measures it
;;; faster.  The measurements go to the database ($PERFDOJO_DB).

(use-modules (perfdojo)
             (ice-9 format)
             (ice-9 ftw))

(define args (cdr (command-line)))
(define dir
  (if (pair? args)
      (car args)
      (string-append (dirname (car (command-line))) "/../examples")))
(define budget (if (> (length args) 1) (string->number (cadr args)) 4))
(define state (seed->random-state
               (if (> (length args) 2) (string->number (caddr args)) 1)))

(define kernels
  (map (lambda (f) (string-append dir "/" f))
       (sort (scandir dir (lambda (f) (string-suffix? ".dojo" f))) string<?)))

;; The median time of P in ms (checked against START), or #f.
(define (time-of p start)
  (let ((m (measure p #:baseline start #:seconds 0.5 #:timeout 20)))
    (and (equal? (assq-ref m 'outcome) "ok")
         (/ (assq-ref m 'median) 1e6))))

;; (start-ms best-ms moves) for one kernel.
(define (tune file)
  (let* ((start (load-program file))
         (t0 (time-of start start)))
    (let loop ((n budget) (best start) (best-t t0) (moves '()))
      (let ((actions (if (and best-t (> n 0)) (legal-actions best) '())))
        (if (null? actions)
            (list t0 best-t (reverse moves))
            (let* ((a (list-ref actions (random (length actions) state)))
                   (q (apply-action best a))
                   (t (time-of q start)))
              (if (and t (< t best-t))
                  (loop (- n 1) q t (cons a moves))
                  (loop (- n 1) best best-t moves))))))))

(format #t "~20a ~12@a ~12@a ~8@a  ~a~%" "kernel" "start ms" "best ms"
        "speedup" "moves kept")
(for-each
 (lambda (file)
   (let* ((r (tune file))
          (t0 (car r)) (t (cadr r)))
     (format #t "~20a ~12@a ~12@a ~8@a  ~a~%"
             (basename file ".dojo")
             (if t0 (format #f "~,4f" t0) "failed")
             (if t (format #f "~,4f" t) "-")
             (if (and t0 t) (format #f "~,2fx" (/ t0 t)) "-")
             (if (null? (caddr r)) "-" (string-join (caddr r) ", ")))))
 kernels)
