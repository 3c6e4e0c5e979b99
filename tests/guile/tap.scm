;;; tap.scm: module (tap), SRFI-64 tests reported in TAP, and helpers.
;;;
;;;   (use-modules (srfi srfi-64) (tap))
;;;   (tap-begin "api")  ... tests ...  (test-end "api")
;;;
;;; Each test is one TAP line ("ok N - NAME"), so make check counts it;
;;; the plan comes at the end.

(define-module (tap)
  #:use-module (srfi srfi-64)
  #:use-module (ice-9 popen)
  #:use-module (ice-9 rdelim)
  #:export (tap-begin thrown command-lines top-srcdir perfdojo-binary))

(define (tap-runner)
  (let ((runner (test-runner-null))
        (n 0))
    (test-runner-on-test-end!
     runner
     (lambda (r)
       (set! n (+ n 1))
       (let ((name (or (test-runner-test-name r) ""))
             (kind (test-result-kind r)))
         (format #t "~a ~a - ~a~a~%"
                 (if (memq kind '(pass xpass skip)) "ok" "not ok")
                 n name
                 (case kind
                   ((xfail xpass) " # TODO")
                   ((skip) " # SKIP")
                   (else "")))
         (when (eq? kind 'fail)
           (for-each (lambda (key)
                       (let ((v (test-result-ref r key)))
                         (when v
                           (format #t "#   ~a: ~s~%" key v))))
                     '(expected-value actual-value actual-error))))))
    (test-runner-on-final!
     runner
     (lambda (r) (format #t "1..~a~%" n)))
    runner))

(define (tap-begin name)
  (test-runner-current (tap-runner))
  (test-begin name))

;; The arguments of the exception KEY that THUNK throws, or #f when it
;; returns; other exceptions go through.
(define (thrown key thunk)
  (catch key
    (lambda () (thunk) #f)
    (lambda (k . args) args)))

(define top-srcdir (or (getenv "top_srcdir") "."))
(define perfdojo-binary (or (getenv "PERFDOJO") "perfdojo"))

;; The lines that the perfdojo command prints for ARGS (strings).
(define (command-lines . args)
  (let* ((port (apply open-pipe* OPEN_READ perfdojo-binary args))
         (lines (let loop ((acc '()))
                  (let ((line (read-line port)))
                    (if (eof-object? line)
                        (reverse acc)
                        (loop (cons line acc)))))))
    (close-pipe port)
    lines))
