;;; agents.scm: composite moves and agents written in Scheme, their
;;; registries, and an agent playing a few steps.
(use-modules (srfi srfi-1)
             (srfi srfi-64)
             (tap)
             (perfdojo))

(tap-begin "agents")

(define matmul (load-program (string-append top-srcdir "/examples/matmul.dojo")))

;; moves
(test-equal "no moves at first" '() (registered-moves))
(define-move "fission-all"
  (lambda (p) (apply-actions p '("fission 0.0 1" "fission 0 1"))))
(define-move 'split-by
  (lambda (p at factor)
    (apply-action p (string-append "split " at " " (number->string factor)))))
(define-move "broken" (lambda (p) 'not-a-program))
(test-equal "registered-moves, sorted, symbols as strings"
  '("broken" "fission-all" "split-by") (registered-moves))
(test-assert "lookup-move finds a move" (procedure? (lookup-move "fission-all")))
(test-assert "lookup-move by symbol" (procedure? (lookup-move 'fission-all)))
(test-equal "lookup-move of an unknown move" #f (lookup-move "nope"))
(test-equal "apply-move is its actions"
  (program-id (apply-actions matmul '("fission 0.0 1" "fission 0 1")))
  (program-id (apply-move matmul "fission-all")))
(test-equal "apply-move passes its arguments"
  (program-id (apply-action matmul "split 0 8"))
  (program-id (apply-move matmul 'split-by "0" 8)))
(test-equal "apply-move of an unknown move" '("unknown move 'nope'")
  (thrown 'perfdojo-error (lambda () (apply-move matmul "nope"))))
(test-equal "a move must return a program"
  '("move 'broken' returned not-a-program, not a program")
  (thrown 'perfdojo-error (lambda () (apply-move matmul "broken"))))
(test-equal "an illegal step inside a move is its refusal"
  (list (action-refusal matmul "split 0 3"))
  (thrown 'perfdojo-error (lambda () (apply-move matmul 'split-by "0" 3))))
(define-move "broken" (lambda (p) p))
(test-equal "define-move again replaces the move" (program-id matmul)
  (program-id (apply-move matmul "broken")))

;; the legal moves a move takes
(test-equal "move-actions: the steps from the state to the result"
  '("fission 0.0 1" "fission 0 1") (move-actions matmul "fission-all"))
(test-equal "move-actions passes its arguments"
  '("split 0 8") (move-actions matmul 'split-by "0" 8))
(test-equal "move-actions of a move that changes nothing" '()
  (move-actions matmul "broken"))
;; a search inside a move: tries two splits, keeps the first
(define-move "try-two"
  (lambda (p)
    (let ((a (apply-action p "split 0 4")))
      (apply-action p "split 0 8")
      (apply-action a "split 0.0 2"))))
(test-equal "steps that do not lead to the result are left out"
  '("split 0 4" "split 0.0 2") (move-actions matmul "try-two"))
(define-move "round-trip"
  (lambda (p) (apply-actions p '("swap 0" "swap 0" "split 0 2"))))
(test-equal "a detour back to a state is left out"
  '("split 0 2") (move-actions matmul "round-trip"))
(define-move "forged"
  (lambda (p) (parse-program "x f32 [2] heap out\n2 | x[{0}] = 1\n")))
(test-equal "a program that legal moves do not reach is refused"
  '("move 'forged': its program is not reached from the state by legal moves (apply-action)")
  (thrown 'perfdojo-error (lambda () (move-actions matmul "forged"))))
(test-equal "after a move, apply-action notes nothing"
  '("split 0 2") (move-actions matmul "round-trip"))

;; agents
(test-equal "no agents at first" '() (registered-agents))
;; the first swap if any, else the first action
(define-agent "swapper"
  (lambda (p actions)
    (or (find (lambda (a) (string-prefix? "swap" a)) actions)
        (and (pair? actions) (car actions)))))
(define-agent 'quitter (lambda (p actions) #f))
(define-agent "liar" (lambda (p actions) 42))
(test-equal "registered-agents" '("liar" "quitter" "swapper") (registered-agents))
(test-assert "lookup-agent" (procedure? (lookup-agent "swapper")))
(test-equal "lookup-agent of an unknown agent" #f (lookup-agent "nobody"))
(test-equal "an agent may stop" #f (agent-choose matmul "quitter"))
(test-equal "an agent must choose a string"
  '("agent 'liar' chose 42, not an action")
  (thrown 'perfdojo-error (lambda () (agent-choose matmul "liar"))))
(test-equal "agent-choose of an unknown agent" '("unknown agent 'nobody'")
  (thrown 'perfdojo-error (lambda () (agent-choose matmul "nobody"))))

;; the agent plays four steps; each choice is legal where it is made
(define (play agent p steps)
  (let loop ((p p) (n steps) (path '()))
    (let ((a (and (> n 0) (agent-choose p agent))))
      (if a
          (begin
            (test-assert (string-append "step " (number->string (- steps n -1))
                                        ": " a " is legal")
              (and (member a (legal-actions p))
                   (not (action-refusal p a))))
            (loop (apply-action p a) (- n 1) (cons a path)))
          (values p (reverse path))))))
(call-with-values (lambda () (play "swapper" matmul 4))
  (lambda (final path)
    (test-equal "the agent took four steps" 4 (length path))
    (test-equal "its first choice" "swap 0" (car path))
    (test-equal "replaying its actions gives its state" (program-id final)
      (program-id (apply-actions matmul path)))
    (let ((small (load-program (string-append top-srcdir
                                              "/tests/ref/matmul.dojo"))))
      (test-equal "the agent's first move computes the same product"
        (run-program small)
        (run-program (apply-action small (agent-choose small "swapper")))))))
(define fissioned (apply-move matmul "fission-all"))
(test-equal "an agent playing after a composite move"
  (program-id (apply-action fissioned
                            (find (lambda (a) (string-prefix? "swap" a))
                                  (legal-actions fissioned))))
  (program-id (apply-action fissioned (agent-choose fissioned "swapper"))))

(test-end "agents")
