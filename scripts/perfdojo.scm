;;; perfdojo.scm: the module (perfdojo), PerfDojo from Guile
;;;
;;; The primitives (%load-program, %apply-action, ...) come from the C
;;; extension guile-perfdojo (scripts/guile.c); this module gives them
;;; their keyword arguments and adds the registries of moves and agents
;;; written in Scheme.  The perfdojo command builds this text in and
;;; defines the module in-process; plain guile finds this file on its load
;;; path and the extension on its extension path.  doc/guile.md describes
;;; every procedure.

(define-module (perfdojo)
  #:use-module (system vm frame)
  #:use-module (system base compile)
  #:use-module (system syntax)
  #:export (program?
            load-program
            parse-program
            program->string
            program-id
            legal-actions
            apply-action
            apply-actions
            action-refusal
            run-program
            measure

            session?
            open-session
            session-current
            session-head
            session-step!
            session-undo!
            session-redo!
            session-checkout!
            session-branch!
            session-log
            session-measure!
            run-agent

            explorer-program
            explorer-session
            bind-key

            perfdojo-error
            perfdojo-error?
            perfdojo-error-message

            define-move
            lookup-move
            apply-move
            move-actions
            registered-moves
            define-agent
            lookup-agent
            agent-choose
            registered-agents))

(load-extension "guile-perfdojo" "dojo_guile_init")

;;; Errors

;; Raise the project's error: key perfdojo-error, the message its only
;; argument.
(define (perfdojo-error message)
  (throw 'perfdojo-error message))

;; Whether the exception object EXN (as with-exception-handler gives it)
;; is a perfdojo-error; its message.
(define (perfdojo-error? exn)
  (and (exception? exn)
       (eq? (exception-kind exn) 'perfdojo-error)))

(define (perfdojo-error-message exn)
  (car (exception-args exn)))

;; An uncaught perfdojo-error at the REPL prints its message.
(set-exception-printer!
 'perfdojo-error
 (lambda (port key args default-printer)
   (if (and (pair? args) (string? (car args)))
       (display (car args) port)
       (default-printer))))

;;; Programs and moves

(define (program? x)
  (%program? x))

(define (load-program path)
  (%load-program path))

;; The program of the text TEXT; NAME names it in errors.
(define* (parse-program text #:optional (name "<string>"))
  (%parse-program text name))

(define* (program->string p #:key (addresses? #f))
  (%program->string p addresses?))

(define (program-id p)
  (%program-id p))

;; The legal actions of P (at ADDRESS, "0.1", when given) as strings, in
;; the stable order of the action set.
(define* (legal-actions p #:optional (address #f) #:key (target "c"))
  (%legal-actions p address target))

;; While move-actions runs a move: the steps that apply-action took,
;; newest first, each (FROM-ID ACTION TO-ID); #f otherwise.
(define %move-steps #f)

(define* (apply-action p action #:key (target "c"))
  (let ((q (%apply-action p action target)))
    (when %move-steps
      (set! %move-steps
            (cons (list (program-id p) action (program-id q)) %move-steps)))
    q))

;; P after each action of ACTIONS in turn.
(define* (apply-actions p actions #:key (target "c"))
  (let loop ((p p) (actions actions))
    (if (null? actions)
        p
        (loop (apply-action p (car actions) #:target target)
              (cdr actions)))))

(define* (action-refusal p action #:key (target "c"))
  (%action-refusal p action target))

;;; Running and measuring

;; Run P on the seeded inputs; an alist: output array name -> alist of
;; sum, abs and hash, as `perfdojo run' prints them.
(define* (run-program p #:key (target "interp") (seed 1) (timeout 60))
  (%run-program p target seed timeout))

;; Time P's generated code, checked against BASELINE's outputs (or its
;; own interpreted outputs); an alist (doc/guile.md).
(define* (measure p #:key (target "c") (baseline #f) (db #f) (fresh? #f)
                  (timeout 60) (cflags #f) (seconds 2.0) (precision 0.01))
  (unless (equal? target "c")
    (if (string? target)
        (perfdojo-error (string-append "unknown target '" target "' (c)"))
        (scm-error 'wrong-type-arg "measure"
                   "Wrong type argument (expecting string): ~S"
                   (list target) (list target))))
  (%measure p baseline db fresh? timeout cflags seconds precision))

;;; Sessions: the exploration history, a git repository (doc/session.md)

(define (session? x)
  (%session? x))

;; The session at PATH; created, starting at PROGRAM, when there is none.
(define* (open-session path #:optional (program #f))
  (%open-session path program))

;; The program of the current state.
(define (session-current s)
  (%session-current s))

;; The commit id of the current state.
(define (session-head s)
  (%session-head s))

;; Take ACTION from the current state and record it; the new state's
;; program.  A step from a state with children starts a branch.
(define* (session-step! s action #:key (target "c"))
  (%session-step! s action target))

;; Moves in the tree; each returns the program of the state reached.
(define (session-undo! s)
  (%session-undo! s))

(define (session-redo! s)
  (%session-redo! s))

(define (session-checkout! s rev)
  (%session-checkout! s rev))

(define (session-branch! s name)
  (%session-branch! s name))

;; Every state, parents first: alists of commit, parent, action, state,
;; depth, current, branches, outcome, median, speedup.
(define (session-log s)
  (%session-log s))

;; Measure the current state (the C target) and record it: an alist of
;; outcome, median, interval, speedup (against the start).
(define* (session-measure! s #:key (db #f) (timeout 60) (seconds 2.0))
  (%session-measure! s db timeout seconds))

;;; Agents (doc/agents.md)

;; Let the agent NAME (random, greedy, beam, maxq) play from P for
;; BUDGET measurements: an alist of program (the best state), speedup,
;; actions (from P to it) and measurements.
(define* (run-agent name p #:key (budget 20) (seed 1) (db #f))
  (%run-agent name p budget seed db))

;;; The explorer (doc/guile.md): its current state, key bindings

;; The current state's program while the explorer evaluates (:scheme,
;; a key binding); #f elsewhere.
(define explorer-program #f)
(define %explorer-session-dir #f)

;; The explorer's session (a new handle on it), or #f outside it.
(define (explorer-session)
  (and %explorer-session-dir (open-session %explorer-session-dir)))

(define %key-bindings (make-hash-table))

;; In the explorer, the key KEY (a one-character string) runs COMMAND: a
;; command line such as "apply split 0.0 4", or a procedure of the
;; current program that returns one (or #f for nothing).
(define (bind-key key command)
  (unless (and (string? key) (= (string-length key) 1))
    (scm-error 'wrong-type-arg "bind-key"
               "Wrong type argument in position 1 (expecting a one-character string): ~S"
               (list key) (list key)))
  (unless (or (string? command) (procedure? command))
    (scm-error 'wrong-type-arg "bind-key"
               "Wrong type argument in position 2 (expecting string or procedure): ~S"
               (list command) (list command)))
  (hash-set! %key-bindings key command))

(define (%key-command program key unused)
  (let ((b (hash-ref %key-bindings key)))
    (cond ((not b) #f)
          ((string? b) b)
          (else
           (set! explorer-program program)
           (let ((r (b program)))
             (and (string? r) r))))))

;; TEXT evaluated for the explorer: the output, then "=> VALUE".  C-c
;; (SIGINT) interrupts it with a perfdojo-error.
(define (%explorer-eval program session-dir text)
  (set! explorer-program program)
  (set! %explorer-session-dir session-dir)
  (let* ((port (open-output-string))
         (value (dynamic-wind
                  (lambda ()
                    (sigaction SIGINT
                               (lambda (sig)
                                 (perfdojo-error "interrupted (C-c)"))))
                  (lambda ()
                    (parameterize ((current-output-port port)
                                   (current-error-port port)
                                   (current-warning-port port))
                      (%eval-string text)))
                  (lambda () (sigaction SIGINT SIG_DFL))))
         (out (get-output-string port)))
    (cond ((string=? value "#<unspecified>") out)
          ((or (string-null? out) (string-suffix? "\n" out))
           (string-append out "=> " value))
          (else (string-append out "\n=> " value)))))

;;; Moves and agents written in Scheme

(define %moves (make-hash-table))
(define %agents (make-hash-table))

(define (registry-key who name)
  (cond ((string? name) name)
        ((symbol? name) (symbol->string name))
        (else (scm-error 'wrong-type-arg who
                         "Wrong type argument in position 1 (expecting string or symbol): ~S"
                         (list name) (list name)))))

(define (check-procedure who proc)
  (unless (procedure? proc)
    (scm-error 'wrong-type-arg who
               "Wrong type argument in position 2 (expecting procedure): ~S"
               (list proc) (list proc))))

;; A composite move NAME: (PROC program args...) returns the new program.
(define (define-move name proc)
  (check-procedure "define-move" proc)
  (hash-set! %moves (registry-key "define-move" name) proc))

(define (lookup-move name)
  (hash-ref %moves (registry-key "lookup-move" name)))

(define (apply-move p name . args)
  (let ((proc (lookup-move name)))
    (unless proc
      (perfdojo-error (simple-format #f "unknown move '~A'" name)))
    (let ((q (apply proc p args)))
      (unless (program? q)
        (perfdojo-error (simple-format #f "move '~A' returned ~S, not a program"
                                       name q)))
      q)))

;; The actions of STEPS (newest first) that lead from the state FROM to
;; the state TO, in order, or #f when none do.  Each state is reached by
;; the oldest step that reached it, so that a detour is left out.
(define (steps-path steps from to)
  (define (oldest-to id l)             ; the tail at the oldest step to ID
    (let loop ((l l) (found #f))
      (cond ((null? l) found)
            ((equal? (caddr (car l)) id) (loop (cdr l) l))
            (else (loop (cdr l) found)))))
  (let loop ((id to) (steps steps) (path '()))
    (if (equal? id from)
        path
        (let ((rest (oldest-to id steps)))
          (and rest
               (loop (car (car rest)) (cdr rest)
                     (cons (cadr (car rest)) path)))))))

;; The legal actions that the move NAME takes from P, in order: the
;; apply-action steps that lead from P to the program it returns.  A
;; move whose program is not reached that way is an error.
(define (move-actions p name . args)
  (let* ((outer %move-steps)
         (steps '())
         (q (dynamic-wind
              (lambda () (set! %move-steps '()))
              (lambda () (apply apply-move p name args))
              (lambda ()
                ;; a move inside a move: its steps are the outer one's too
                (set! steps %move-steps)
                (set! %move-steps (and outer (append steps outer)))))))
    (or (steps-path steps (program-id p) (program-id q))
        (perfdojo-error
         (simple-format #f "move '~A': its program is not reached from the state by legal moves (apply-action)"
                        name)))))

(define (registered-moves)
  (sort (hash-map->list (lambda (k v) k) %moves) string<?))

;; An agent NAME: (PROC program legal-actions) returns one of the
;; actions, or #f to stop.
(define (define-agent name proc)
  (check-procedure "define-agent" proc)
  (hash-set! %agents (registry-key "define-agent" name) proc))

(define (lookup-agent name)
  (hash-ref %agents (registry-key "lookup-agent" name)))

(define* (agent-choose p name #:key (target "c"))
  (let ((proc (lookup-agent name)))
    (unless proc
      (perfdojo-error (simple-format #f "unknown agent '~A'" name)))
    (let ((a (proc p (legal-actions p #:target target))))
      (unless (or (not a) (string? a))
        (perfdojo-error (simple-format #f "agent '~A' chose ~S, not an action"
                                       name a)))
      a)))

(define (registered-agents)
  (sort (hash-map->list (lambda (k v) k) %agents) string<?))

;;; For the perfdojo command (scripts/embed.c): not exported.

;; Where the top-level form being run starts, for errors raised where no
;; frame of the script is left on the stack (tail calls).
(define %form-location #f)

(define (location-of syntax)
  (let ((src (and (syntax? syntax) (syntax-source syntax))))
    (and src (assq-ref src 'line)
         (list (assq-ref src 'filename) (assq-ref src 'line)
               (assq-ref src 'column)))))

;; Run the script FILE: each top-level form read with its source
;; positions, compiled and run in (guile-user) in turn.
(define (%load-script file)
  (call-with-input-file file
    (lambda (port)
      (save-module-excursion
       (lambda ()
         (set-current-module (resolve-module '(guile-user)))
         (let loop ()
           (let ((form (read-syntax port)))
             (unless (eof-object? form)
               (set! %form-location (location-of form))
               (compile form #:env (current-module) #:to 'value
                        #:warning-level 0 #:optimization-level 1)
               (loop)))))))))

;; Evaluate the forms of TEXT in (guile-user), which uses (perfdojo); the
;; written form of the last value.
(define (%eval-string text)
  (let ((port (open-input-string text))
        (module (resolve-module '(guile-user))))
    (module-use! module (resolve-interface '(perfdojo)))
    (let loop ((value *unspecified*))
      (let ((form (read port)))
        (if (eof-object? form)
            (call-with-output-string (lambda (out) (write value out)))
            (loop (eval form module)))))))

;; The innermost frame of STACK with a source position in FILE.
(define (stack-location stack file)
  (and (stack? stack) file
       (let loop ((i 0))
         (and (< i (stack-length stack))
              (let ((src (frame-source (stack-ref stack i))))
                (if (and src (equal? (cadr src) file))
                    (list file (caddr src) (cdddr src))
                    (loop (+ i 1))))))))

;; The text of an error KEY ARGS, without a location.
(define (error-text key args)
  (define (standard-text subr fmt fargs)
    (let ((text (catch #t
                  (lambda () (apply simple-format #f fmt (or fargs '())))
                  (lambda _ fmt))))
      (if subr (simple-format #f "~A: ~A" subr text) text)))
  (cond
   ((and (eq? key 'perfdojo-error) (pair? args) (string? (car args)))
    (car args))
   ((and (eq? key 'read-error) (= (length args) 4) (string? (cadr args)))
    (standard-text #f (cadr args) (caddr args)))
   ((and (eq? key '%exception) (pair? args) (exception? (car args))
         (exception-with-message? (car args)))
    (let ((exn (car args)))
      (string-join (cons (exception-message exn)
                         (map (lambda (x) (simple-format #f "~S" x))
                              (if (exception-with-irritants? exn)
                                  (exception-irritants exn)
                                  '())))
                   " ")))
   ((and (eq? key 'syntax-error) (>= (length args) 4))
    (simple-format #f "~A: ~A in ~S" (car args) (cadr args)
                   (syntax->datum (cadddr args))))
   ((and (= (length args) 4) (string? (cadr args))
         (or (not (caddr args)) (list? (caddr args))))
    (standard-text (car args) (cadr args) (caddr args)))
   ((and (eq? key '%exception) (pair? args))
    (simple-format #f "uncaught exception: ~S" (car args)))
   (else
    (simple-format #f "uncaught throw to ~S: ~S" key args))))

;; The one-line message of an error KEY ARGS caught with the stack STACK
;; while running FILE (#f: no script): "FILE:LINE:COL: text", lines and
;; columns counted from 1.
(define (%error-message key args stack file)
  (define (syntax-location)
    (and (eq? key 'syntax-error) (>= (length args) 4)
         (let ((props (caddr args)))
           (if (and (pair? props) (assq-ref props 'line))
               (list (or (assq-ref props 'filename) file)
                     (assq-ref props 'line) (assq-ref props 'column))
               (location-of (cadddr args))))))
  (let ((text (error-text key args))
        (loc (and (not (eq? key 'read-error))
                  (or (syntax-location)
                      (stack-location stack file)
                      (and file %form-location)))))
    (cond
     ((and loc (car loc))
      (simple-format #f "~A:~A:~A: ~A" (car loc) (+ 1 (cadr loc))
                     (+ 1 (caddr loc)) text))
     ((and file (not (eq? key 'read-error)))
      (simple-format #f "~A: ~A" file text))
     (else text))))
