;;; api.scm: every procedure of (perfdojo), checked against the perfdojo
;;; command where the command prints the same thing.
(use-modules (srfi srfi-1)
             (srfi srfi-64)
             (ice-9 rdelim)
             (tap)
             (perfdojo))

(tap-begin "api")

(define matmul-file (string-append top-srcdir "/examples/matmul.dojo"))
(define softmax-file (string-append top-srcdir "/tests/ref/softmax.dojo"))
(define small-file (string-append top-srcdir "/tests/ref/matmul.dojo"))
(define matmul (load-program matmul-file))
(define softmax (load-program softmax-file))
(define small (load-program small-file))

(define (joined lines)
  (string-append (string-join lines "\n") "\n"))

;; load-program, program?
(test-assert "load-program gives a program" (program? matmul))
(test-equal "program? of a string" #f (program? "matmul"))
(test-equal "program? of a list" #f (program? '(1 2)))

;; program->string: the canonical text, as perfdojo show prints it
(test-equal "program->string is perfdojo show"
  (joined (command-lines "show" matmul-file))
  (program->string matmul))
(test-equal "program->string #:addresses? is perfdojo show --addresses"
  (joined (command-lines "show" "--addresses" matmul-file))
  (program->string matmul #:addresses? #t))

;; parse-program
(define text "A f32 [4, 4] heap in\nB f32 [4, 4] heap out\n4 | 4 | B[{0}, {1}] = 2 * A[{0}, {1}]\n")
(define parsed (parse-program text))
(test-assert "parse-program gives a program" (program? parsed))
(test-equal "parse-program reads the canonical text back"
  (program-id matmul)
  (program-id (parse-program (program->string matmul))))
(test-equal "parse-program then program->string" text
  (program->string parsed))

;; program-id
(test-equal "program-id is the state id of 40 hex digits" 40
  (string-length (program-id matmul)))
(test-assert "program-id is hexadecimal"
  (string-every (char-set-union char-set:digit (string->char-set "abcdef"))
                (program-id matmul)))
(test-equal "the same text, the same id" (program-id matmul)
  (program-id (load-program matmul-file)))
(test-assert "other programs, other ids"
  (not (equal? (program-id matmul) (program-id small))))

;; legal-actions
(define actions (legal-actions matmul))
(test-equal "legal-actions is perfdojo actions"
  (command-lines "actions" matmul-file) actions)
(test-assert "legal-actions gives strings" (every string? actions))
(test-equal "legal-actions at an address is perfdojo actions --at"
  (command-lines "actions" "--at" "0.0" matmul-file)
  (legal-actions matmul "0.0"))
(test-assert "the moves at 0 are among all the moves"
  (lset<= equal? (legal-actions matmul "0") actions))
(test-assert "swap 0 is legal at 0" (member "swap 0" (legal-actions matmul "0")))
(test-assert "#:target cuda adds GPU moves"
  (> (length (legal-actions matmul #:target "cuda")) (length actions)))
(test-equal "legal-actions with an address and a target"
  (command-lines "actions" "--at" "0" "--target" "cuda" matmul-file)
  (legal-actions matmul "0" #:target "cuda"))

;; apply-action, apply-actions
(define split (apply-action matmul "split 0 4"))
(test-assert "apply-action gives a program" (program? split))
(test-equal "apply-action takes a loop's name for its address"
  (program-id split) (program-id (apply-action matmul "split i 4")))
(test-equal "apply-action is perfdojo apply"
  (joined (command-lines "apply" matmul-file "split 0 4"))
  (program->string split))
(test-equal "apply-action leaves its argument as it was"
  (joined (command-lines "show" matmul-file))
  (program->string matmul))
(test-assert "apply-action moves to another state"
  (not (equal? (program-id split) (program-id matmul))))

(define blocked-actions
  (call-with-input-file (string-append top-srcdir "/examples/matmul-blocked.actions")
    (lambda (port)
      (let loop ((acc '()))
        (let ((line (read-line port)))
          (cond ((eof-object? line) (reverse acc))
                ((or (string-null? (string-trim line))
                     (string-prefix? "#" line))
                 (loop acc))
                (else (loop (cons line acc)))))))))
(test-equal "apply-actions is perfdojo apply --actions"
  (joined (command-lines "apply" matmul-file "--actions"
                         (string-append top-srcdir "/examples/matmul-blocked.actions")))
  (program->string (apply-actions matmul blocked-actions)))
(test-equal "apply-actions of no action" (program-id matmul)
  (program-id (apply-actions matmul '())))

;; action-refusal
(test-equal "action-refusal of a legal move" #f
  (action-refusal matmul "swap 0"))
(test-equal "action-refusal gives the reason"
  "parallelize 0.0.1: the scope carries the dependence of 0.0.1.0 on 0.0.1.0 through C (flow), direction (=, =, <)"
  (action-refusal matmul "parallelize 0.0.1"))
(test-equal "action-refusal is perfdojo actions --why"
  (command-lines "actions" "--why" "split 0 3" matmul-file)
  (list (action-refusal matmul "split 0 3")))
(test-assert "a GPU move is refused for the c target"
  (string? (action-refusal matmul "gpu-grid 0")))

;; run-program
(define (checksum-line name sums)
  (let ((s (assoc-ref sums name)))
    (format #f "~a sum=~a abs=~a hash=~a" name
            (assq-ref s 'sum) (assq-ref s 'abs) (assq-ref s 'hash))))
(define run (run-program softmax))
(test-equal "run-program names the out arrays" '("y") (map car run))
(test-equal "run-program has perfdojo run's hash"
  (string-append "hash="
                 (assq-ref (assoc-ref run "y") 'hash))
  (car (last-pair (string-split (car (command-lines "run" softmax-file)) #\space))))
(test-assert "run-program's sums are numbers"
  (and (real? (assq-ref (assoc-ref run "y") 'sum))
       (real? (assq-ref (assoc-ref run "y") 'abs))))
(test-assert "softmax rows sum to one each"
  (< (abs (- (assq-ref (assoc-ref run "y") 'sum) 6)) 0.01))
(test-equal "run-program is repeatable" run (run-program softmax))
(test-assert "another seed, another hash"
  (not (equal? run (run-program softmax #:seed 2))))
(test-equal "#:seed is perfdojo run --seed's"
  (car (last-pair (string-split (car (command-lines "run" "--seed" "7" small-file)) #\space)))
  (string-append "hash=" (assq-ref (assoc-ref (run-program small #:seed 7) "C") 'hash)))
(define c-run (run-program small #:target "c"))
(test-equal "run-program #:target c is perfdojo run --target c"
  (car (last-pair (string-split (car (command-lines "run" "--target" "c" small-file)) #\space)))
  (string-append "hash=" (assq-ref (assoc-ref c-run "C") 'hash)))
(when (and (search-path (parse-path (getenv "PATH")) "qemu-aarch64")
           (search-path (parse-path (getenv "PATH")) "aarch64-linux-gnu-gcc"))
  (test-equal "run-program #:target aarch64 is perfdojo run --target aarch64"
    (car (last-pair (string-split (car (command-lines "run" "--target" "aarch64" small-file)) #\space)))
    (string-append "hash=" (assq-ref (assoc-ref (run-program small #:target "aarch64") "C") 'hash))))

;; measure (nothing about the times but their order: no test depends on
;; the speed of the machine)
(define m (measure small #:seconds 0.2))
(test-equal "measure's outcome" "ok" (assq-ref m 'outcome))
(test-assert "measure's median is positive" (> (assq-ref m 'median) 0))
(test-assert "the interval holds the median"
  (let ((i (assq-ref m 'interval)))
    (<= (car i) (assq-ref m 'median) (cdr i))))
(test-equal "no baseline, no speedup" #f (assq-ref m 'speedup))
(test-assert "measure gives the repetitions" (>= (assq-ref m 'reps) 1))
(test-equal "measure's state is the program id" (program-id small)
  (assq-ref m 'state))
(test-equal "measure's fingerprint has 40 digits" 40
  (string-length (assq-ref m 'fingerprint)))
(test-assert "a second measurement comes from the database (unless its runs were disturbed)"
  (let ((m2 (measure small #:seconds 0.2)))
    (or (assq-ref m2 'cached) (< (assq-ref m 'runs) 3)
        (assq-ref m 'disturbed))))
(test-assert "measure gives the runs and their spread"
  (and (>= (assq-ref m 'runs) 1) (>= (assq-ref m 'spread) 0)
       (boolean? (assq-ref m 'disturbed))))
(test-equal "#:fresh? measures again" #f
  (assq-ref (measure small #:seconds 0.2 #:fresh? #t) 'cached))
(define moved (apply-action small "parallelize 0"))
(define mb (measure moved #:baseline small #:seconds 0.2))
(test-assert "a baseline gives a speedup"
  (and (real? (assq-ref mb 'speedup)) (> (assq-ref mb 'speedup) 0)))
(test-assert "#:db names the database"
  (let ((db (string-append (getcwd) "/other.db")))
    (and (not (assq-ref (measure small #:seconds 0.2 #:db db) 'cached))
         (file-exists? db))))

(test-end "api")
