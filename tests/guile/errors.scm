;;; errors.scm: wrong types are wrong-type-arg; what the core refuses
;;; (files, text, addresses, actions, illegal moves, targets) is
;;; perfdojo-error with the core's one-line message as its argument.
(use-modules (srfi srfi-1)
             (srfi srfi-64)
             (ice-9 ftw)
             (ice-9 rdelim)
             (tap)
             (perfdojo))

(tap-begin "errors")

(define matmul (load-program (string-append top-srcdir "/examples/matmul.dojo")))

(define-syntax-rule (test-wrong-type name expr)
  (test-assert name (thrown 'wrong-type-arg (lambda () expr))))

(define-syntax-rule (test-perfdojo-error name message expr)
  (test-equal name (list message) (thrown 'perfdojo-error (lambda () expr))))

;; wrong types
(test-wrong-type "load-program of a number" (load-program 42))
(test-wrong-type "parse-program of a symbol" (parse-program 'A))
(test-wrong-type "parse-program with a name not a string" (parse-program "" 1))
(test-wrong-type "program->string of a string" (program->string "A f32 [1] heap out"))
(test-wrong-type "program-id of #f" (program-id #f))
(test-wrong-type "legal-actions of a list" (legal-actions '()))
(test-wrong-type "legal-actions at a number" (legal-actions matmul 0))
(test-wrong-type "legal-actions for a target symbol" (legal-actions matmul #:target 'c))
(test-wrong-type "apply-action of a symbol" (apply-action matmul 'swap))
(test-wrong-type "apply-action on a string" (apply-action "matmul" "swap 0"))
(test-wrong-type "apply-actions of a list of numbers" (apply-actions matmul '(1)))
(test-wrong-type "action-refusal of a number" (action-refusal matmul 7))
(test-wrong-type "run-program of a number" (run-program 3))
(test-wrong-type "run-program with a seed string" (run-program matmul #:seed "1"))
(test-wrong-type "measure of a vector" (measure #(1)))
(test-wrong-type "measure against a string baseline" (measure matmul #:baseline "x"))
(test-wrong-type "define-move with a number name" (define-move 1 identity))
(test-wrong-type "define-move of a non-procedure" (define-move "m" 5))
(test-wrong-type "define-agent of a non-procedure" (define-agent "a" "first"))
(test-assert "the message names the procedure and the type"
  (let ((args (thrown 'wrong-type-arg (lambda () (program-id 5)))))
    (and (equal? (car args) "program-id")
         (member "program" (caddr args)))))
(test-assert "a negative seed is out of range"
  (thrown 'out-of-range (lambda () (run-program matmul #:seed -1))))
(test-assert "a zero timeout is out of range"
  (thrown 'out-of-range (lambda () (run-program matmul #:timeout 0))))

;; files and text: each malformed input of tests/bad, the message of its
;; .err file (without "perfdojo: ")
(define bad-dir (string-append top-srcdir "/tests/bad"))
(define (err-text file)
  (let ((line (call-with-input-file file read-line)))
    (substring line (string-length "perfdojo: "))))
(define (in-directory dir thunk)
  (let ((here (getcwd)))
    (dynamic-wind (lambda () (chdir dir)) thunk (lambda () (chdir here)))))
(in-directory bad-dir
  (lambda ()
    (for-each
     (lambda (f)
       (let ((err (string-append (basename f ".dojo") ".err")))
         (when (file-exists? err)
           (test-perfdojo-error (string-append "load-program " f)
             (err-text err) (load-program f)))))
     (scandir "." (lambda (f) (string-suffix? ".dojo" f))))))
(test-perfdojo-error "a missing file"
  "missing.dojo: No such file or directory" (load-program "missing.dojo"))
(test-perfdojo-error "parse-program names the text in errors"
  "kernel:2:4: missing operation after the last '|'"
  (parse-program "A f32 [4] heap out\n4 |\n" "kernel"))
(test-assert "parse-program's default name"
  (string-prefix? "<string>:1:"
                  (car (thrown 'perfdojo-error (lambda () (parse-program "bogus"))))))

;; addresses and actions
(test-perfdojo-error "a malformed address" "malformed address '0.x'"
  (legal-actions matmul "0.x"))
(test-perfdojo-error "no node at an address" "no node at address 9"
  (legal-actions matmul "9"))
(test-perfdojo-error "an unknown move" "unknown move 'frobnicate'"
  (apply-action matmul "frobnicate 0"))
(test-perfdojo-error "a malformed action"
  "split: missing number (usage: split SCOPE FACTOR)"
  (apply-action matmul "split 0"))
(test-perfdojo-error "action-refusal of a malformed action"
  "unknown move 'frobnicate'" (action-refusal matmul "frobnicate 0"))
(test-perfdojo-error "an illegal move: its refusal"
  (action-refusal matmul "split 0 3") (apply-action matmul "split 0 3"))
(test-perfdojo-error "apply-actions stops at the illegal move"
  (action-refusal (apply-action matmul "split 0 4") "unroll 0")
  (apply-actions matmul '("split 0 4" "unroll 0")))
(test-perfdojo-error "an unknown target for moves" "unknown target 'tpu' (c, aarch64, riscv64 or cuda)"
  (legal-actions matmul #:target "tpu"))
(test-perfdojo-error "an unknown target for run" "unknown target 'gpu' (interp, or a target whose code runs: c, aarch64, riscv64)"
  (run-program matmul #:target "gpu"))
(test-perfdojo-error "an unknown target for measure" "unknown target 'cuda' (c)"
  (measure matmul #:target "cuda"))

;; the exception object, for with-exception-handler
(test-equal "perfdojo-error? and perfdojo-error-message"
  '(#t "no node at address 9")
  (with-exception-handler
      (lambda (e) (list (perfdojo-error? e) (perfdojo-error-message e)))
    (lambda () (legal-actions matmul "9"))
    #:unwind? #t))
(test-equal "perfdojo-error? of another error" #f
  (with-exception-handler perfdojo-error?
    (lambda () (car 1))
    #:unwind? #t))
(test-perfdojo-error "perfdojo-error raises the same key" "mine"
  (perfdojo-error "mine"))
(test-assert "the program is still usable after errors"
  (= (length (legal-actions matmul))
     (length (legal-actions (load-program (string-append top-srcdir "/examples/matmul.dojo"))))))

(test-end "errors")
