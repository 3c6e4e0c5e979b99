;;; random-search.scm: random walks over the legal moves, restarted from
;;; the start, each state measured with the C target; the best one wins.
;;;
;;;   perfdojo script scripts/random-search.scm KERNEL.dojo [BUDGET [DEPTH [SEED]]]
;;;
;;; BUDGET (default 12) measurements in all; each walk takes at most DEPTH
;;; (default 4) random moves from the start before the next restart; SEED
;;; (default 1) makes the walk repeatable.  Prints each step, then the
;;; best state's actions, speedup and program.  The measurements are kept
;;; in the database ($PERFDOJO_DB), so a second run measures nothing again.

(use-modules (perfdojo)
             (ice-9 format))

(define args (cdr (command-line)))
(when (null? args)
  (format (current-error-port)
          "usage: perfdojo script random-search.scm KERNEL.dojo [BUDGET [DEPTH [SEED]]]~%")
  (exit 2))

(define (arg n default)
  (if (> (length args) n) (string->number (list-ref args n)) default))

(define kernel (car args))
(define budget (arg 1 12))
(define depth (arg 2 4))
(define state (seed->random-state (arg 3 1)))

(define start (load-program kernel))

;; The speedup of P against the start, or #f when P failed (the outcome
;; is printed).
(define (speedup-of p)
  (let ((m (measure p #:baseline start #:seconds 0.5 #:timeout 20)))
    (if (equal? (assq-ref m 'outcome) "ok")
        (assq-ref m 'speedup)
        (begin
          (format #t "    ~a: ~a~%" (assq-ref m 'outcome) (assq-ref m 'message))
          #f))))

(define (random-element lst)
  (list-ref lst (random (length lst) state)))

;; Walk from the start; returns the best (speedup program actions) seen.
(define (search)
  (let loop ((left budget) (restart 1) (step 0) (p start) (path '())
             (best (list 1.0 start '())))
    (cond
     ((<= left 0) best)
     ((= step depth)
      (loop left (+ restart 1) 0 start '() best))
     (else
      (let ((actions (legal-actions p)))
        (if (null? actions)
            (loop left (+ restart 1) 0 start '() best)
            (let* ((a (random-element actions))
                   (q (apply-action p a))
                   (s (speedup-of q))
                   (path (append path (list a))))
              (format #t "walk ~a step ~a: ~a -> ~a~%" restart (+ step 1) a
                      (if s (format #f "~,2fx" s) "failed"))
              (loop (- left 1) restart (+ step 1) q path
                    (if (and s (> s (car best))) (list s q path) best)))))))))

(format #t "random search on ~a: budget ~a, depth ~a~%" kernel budget depth)
(let ((best (search)))
  (format #t "~%best: ~,2fx against the start after ~a~%"
          (car best)
          (if (null? (caddr best)) "no move" (string-join (caddr best) ", ")))
  (display (program->string (cadr best))))
