;;; tutorial.scm: the naive matmul to a blocked one, one group of moves at
;;; a time, with what each group is for.
;;;
;;;   perfdojo script scripts/tutorial.scm [KERNEL.dojo] [--run] [--measure]
;;;
;;; KERNEL defaults to examples/matmul.dojo next to this script's folder
;;; (the moves are written for its 512x512x512 product).  --run checks
;;; with the interpreter that the blocked kernel computes what the naive
;;; one does (a few seconds); --measure times both with the C target.
;;; Without the perfdojo command: guile -L DIR-OF-perfdojo.scm tutorial.scm

(use-modules (perfdojo)
             (ice-9 format))

(define args (cdr (command-line)))
(define run? (member "--run" args))
(define measure? (member "--measure" args))
(define kernel
  (let ((files (filter (lambda (a) (not (string-prefix? "--" a))) args)))
    (if (pair? files)
        (car files)
        (string-append (dirname (car (command-line))) "/../examples/matmul.dojo"))))

(define (say . lines)
  (for-each (lambda (line) (display line) (newline)) lines))

(define (show p)
  (display (program->string p #:addresses? #t))
  (newline))

;; Each lesson: what it is for, then its actions, in the order of
;; examples/matmul-blocked.actions.
(define lessons
  '(("Split the initialisation of C from the product, then pull the k loop"
     "out on its own (fission), so that i, j, k can be reordered freely."
     ("fission 0.0 1" "fission 0 1"))
    ("Tiles: i = 4 io + ii and j = 16 jo + jj.  Splitting never changes"
     "the order of the work, only how the loops count."
     ("split 1 4" "split 1.0.0 16"))
    ("The blocked order jo, io, k, ii, jj: swaps of perfect loop pairs, each"
     "checked against the dependences (k carries the sum into C)."
     ("swap 1.0" "swap 1" "swap 1.0.0.0" "swap 1.0.0"))
    ("The register tile: the 4 rows unrolled, the 16 columns one vector."
     ""
     ("unroll 1.0.0.0" "vectorize 1.0.0.0.0"))
    ("C's 4x16 tile in a local (stack) buffer for the whole k loop: loaded"
     "before it, stored after it, every copy loop unrolled and vectorized."
     ("cache 1.0.0 C stack" "unroll 1.0.0" "vectorize 1.0.0.0"
      "unroll 1.0.2" "vectorize 1.0.2.0"))
    ("The 512x16 panel of B that a column block reads, packed once into a"
     "contiguous buffer and reused by all 128 row blocks."
     ("pack 1.0 B 0,1" "vectorize 1.0.0"))
    ("The initialisation as vectors, and the column blocks on threads (the"
     "panel and the tile are private to each iteration)."
     ("vectorize 0.0" "parallelize 1" "parallelize 0"))))

(define start (load-program kernel))

(say (format #f "The naive kernel (~a), with the address of each node:" kernel)
     "")
(show start)
(say (format #f "It has ~a legal moves; at the outer loop (address 0):"
             (length (legal-actions start)))
     (format #f "  ~a" (legal-actions start "0"))
     ""
     "A move the rules refuse says why:"
     (format #f "  ~a" (action-refusal start "parallelize 0.0.1"))
     "")

(define blocked
  (let loop ((p start) (lessons lessons) (n 1))
    (if (null? lessons)
        p
        (let* ((lesson (car lessons))
               (actions (caddr lesson))
               (next (apply-actions p actions)))
          (say (format #f "Step ~a. ~a" n (car lesson)))
          (unless (string-null? (cadr lesson))
            (say (format #f "        ~a" (cadr lesson))))
          (for-each (lambda (a) (say (format #f "  > ~a" a))) actions)
          (say "")
          (show next)
          (say (format #f "  state ~a, ~a legal moves next"
                       (string-take (program-id next) 12)
                       (length (legal-actions next)))
               "")
          (loop next (cdr lessons) (+ n 1))))))

(say "The blocked kernel computes the same product:")
(when run?
  (let ((a (run-program start)) (b (run-program blocked)))
    (say (format #f "  naive   ~a" (assoc-ref a "C"))
         (format #f "  blocked ~a" (assoc-ref b "C"))
         (if (equal? a b)
             "  the same checksums"
             "  checksums differ (the moves reorder the sums; measure checks within a tolerance)"))))
(unless run?
  (say "  (run with --run to check it with the interpreter)"))

(when measure?
  (let ((m (measure blocked #:baseline start)))
    (say (format #f "Measured: ~a, median ~,3f ms, speedup ~a against the naive kernel"
                 (assq-ref m 'outcome)
                 (/ (or (assq-ref m 'median) 0) 1e6)
                 (assq-ref m 'speedup)))))
