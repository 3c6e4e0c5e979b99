;;; session.scm: the session procedures of (perfdojo): a git history of
;;; states, stepped, undone, branched, logged and measured from Scheme.
(use-modules (srfi srfi-1)
             (srfi srfi-64)
             (tap)
             (perfdojo))

(tap-begin "session")

(define small (load-program (string-append top-srcdir "/tests/ref/bias_relu.dojo")))
(define dir "session-test")

(define s (open-session dir small))
(test-assert "open-session creates a session" (session? s))
(test-equal "session? of a program" #f (session? small))
(test-equal "a new session starts at the program"
  (program-id small) (program-id (session-current s)))
(test-equal "its log holds the start" 1 (length (session-log s)))

(define after (session-step! s "split 0.0 2"))
(test-equal "session-step! returns the new state"
  (program-id (apply-action small "split 0.0 2")) (program-id after))
(session-step! s "parallelize 0")
(define log (session-log s))
(test-equal "each step is a state of the log" 3 (length log))
(test-equal "the log gives the actions, parents first"
  '(#f "split 0.0 2" "parallelize 0")
  (map (lambda (e) (assoc-ref e 'action)) log))
(test-equal "the last step is current" #t (assoc-ref (last log) 'current))
(test-equal "session-head is its commit"
  (assoc-ref (last log) 'commit) (session-head s))

(define back (session-undo! s))
(test-equal "session-undo! goes to the parent"
  (program-id after) (program-id back))
(test-equal "undo keeps the child" 3 (length (session-log s)))
(session-redo! s)
(test-equal "session-redo! comes back"
  (assoc-ref (last log) 'commit) (session-head s))

(session-undo! s)
(session-step! s "swap 0.0")
(test-assert "a step where a child exists starts a branch"
  (any (lambda (e) (string=? (assoc-ref e 'branches) "main-2"))
       (session-log s)))
(session-checkout! s "main")
(test-equal "session-checkout! of a branch"
  (assoc-ref (last log) 'commit) (session-head s))
(session-branch! s "mine")
(test-assert "session-branch! names the current state"
  (string-contains (assoc-ref (find (lambda (e) (assoc-ref e 'current))
                                    (session-log s)) 'branches) "mine"))

(test-error "an illegal step is a perfdojo-error" 'perfdojo-error
  (session-step! s "swap 0.0.0.0"))
(test-equal "the error says why"
  "swap 0.0.0.0: 0.0.0.0 is an operation, not a scope"
  (catch 'perfdojo-error (lambda () (session-step! s "swap 0.0.0.0"))
    (lambda (key msg) msg)))
(test-error "undo at the start" 'perfdojo-error
  (begin (session-checkout! s "HEAD~2") (session-undo! s) (session-undo! s)))
(test-error "an unknown revision" 'perfdojo-error
  (session-checkout! s "no-such-branch"))
(test-error "open-session of nothing" 'perfdojo-error
  (open-session "no-such-session"))
(test-error "session-step! on a program" 'wrong-type-arg
  (session-step! small "split 0.0 2"))
(test-error "session-step! with a number" 'wrong-type-arg
  (session-step! s 42))

(define again (open-session dir))
(test-equal "reopening finds the same current state"
  (session-head s) (session-head again))

(define m (session-measure! s #:seconds 0.2))
(test-equal "session-measure! measures" "ok" (assoc-ref m 'outcome))
(test-assert "with a median" (> (assoc-ref m 'median) 0))
(test-assert "the log shows the measurement"
  (assoc-ref (find (lambda (e) (assoc-ref e 'current)) (session-log s))
             'median))
;; a state the database knows (measured again until it has 3 clean runs)
(define m2 (session-measure! s #:seconds 0.2))
(define m3 (session-measure! s #:seconds 0.2))
(test-equal "session-measure! of a known state" '("ok" "ok")
  (list (assoc-ref m2 'outcome) (assoc-ref m3 'outcome)))
(test-assert "gives its median again" (> (assoc-ref m3 'median) 0))

;; run-agent: an agent from (perfdojo)
(define r (run-agent "random" small #:budget 3 #:seed 2))
(test-assert "run-agent keeps its budget" (<= (assoc-ref r 'measurements) 3))
(test-assert "run-agent gives the best program" (program? (assoc-ref r 'program)))
(test-equal "its actions lead from the program to it"
  (program-id (assoc-ref r 'program))
  (program-id (apply-actions small (assoc-ref r 'actions))))
(test-assert "and its speedup" (> (assoc-ref r 'speedup) 0))
;; the same seed walks the same states; its best is the same unless a
;; state measured on a busy machine was measured again (its speedup then
;; differs)
(define r2 (run-agent "random" small #:budget 3 #:seed 2))
(test-equal "the same seed measures as many states"
  (assoc-ref r 'measurements) (assoc-ref r2 'measurements))
(test-assert "the same seed plays the same path (unless measured anew)"
  (or (equal? (assoc-ref r 'actions) (assoc-ref r2 'actions))
      (not (= (assoc-ref r 'speedup) (assoc-ref r2 'speedup)))))
(test-error "an unknown agent" 'perfdojo-error (run-agent "oracle" small))
(test-error "a budget of 0" 'out-of-range (run-agent "random" small #:budget 0))

;; a Scheme agent plays a session
(define-agent "first" (lambda (p actions) (and (pair? actions) (car actions))))
(define s2 (open-session "agent-session" small))
(let loop ((i 0))
  (when (< i 3)
    (let ((a (agent-choose (session-current s2) "first")))
      (when a (session-step! s2 a) (loop (+ i 1))))))
(test-equal "a Scheme agent's steps are the session's states"
  4 (length (session-log s2)))

(test-end "session")
