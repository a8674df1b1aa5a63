;;; emacs_test.el --- batch test of editors/emacs/lanes.el against the mock server  -*- lexical-binding: t; -*-
;; emacs --batch -l editors/test/emacs_test.el   (through editors/test/emacs-test.sh)

(require 'package)
(package-initialize)

(defvar lanes-test-editors (getenv "LANES_EDITORS_DIR"))
(defvar lanes-test-dir (getenv "LANES_TEST_DIR"))
(defvar lanes-test-log (getenv "MOCK_LANES_LOG"))
(defvar lanes-test-passed 0)
(defvar lanes-test-failed 0)

(defun lanes-test-check (name ok &optional detail)
  (if ok
      (setq lanes-test-passed (1+ lanes-test-passed))
    (setq lanes-test-failed (1+ lanes-test-failed))
    (princ (format "FAIL [emacs] %s%s\n" name (if detail (format ": %S" detail) "")))))

(defun lanes-test-messages (method)
  (when (file-exists-p lanes-test-log)
    (with-temp-buffer
      (insert-file-contents lanes-test-log)
      (let (out)
        (dolist (line (split-string (buffer-string) "\n" t))
          (let ((msg (json-parse-string line :object-type 'plist)))
            (when (equal (plist-get msg :method) method)
              (push (cons msg line) out))))
        (nreverse out)))))

(defun lanes-test-wait (pred &optional seconds)
  (let ((end (+ (float-time) (or seconds 5))) value)
    (while (and (not (setq value (funcall pred))) (< (float-time) end))
      (accept-process-output nil 0.05))
    value))

;; byte-compiles cleanly
(let* ((byte-compile-error-on-warn t)
       (src (expand-file-name "emacs/lanes.el" lanes-test-editors))
       (out (expand-file-name "lanes.elc" lanes-test-dir))
       (byte-compile-dest-file-function (lambda (_) out)))
  (lanes-test-check "byte-compile without warnings" (byte-compile-file src)))

(add-to-list 'load-path (expand-file-name "emacs" lanes-test-editors))
(require 'lanes)
(setq lanes-server-path (expand-file-name "test/mock-lanes-lsp.js" lanes-test-editors)
      lanes-target "sse4-i32x4"
      lanes-defines '("N=16")
      lanes-diagnostics '(("L0202" . "information")))

(find-file (expand-file-name "k.cl" lanes-test-dir))
(lanes-test-check "opencl-mode" (derived-mode-p 'opencl-mode) major-mode)
(apply #'eglot (eglot--guess-contact))
(lanes-test-check "connected" (lanes-test-wait (lambda () (eglot-current-server))))
(lanes-test-check "server class" (object-of-class-p (eglot-current-server) 'lanes-eglot-server))

(let ((init (car (lanes-test-messages "initialize"))))
  (lanes-test-check "initialize sent" init)
  (when init
    (let ((options (plist-get (plist-get (car init) :params) :initializationOptions)))
      (lanes-test-check "initializationOptions.target" (equal (plist-get options :target) "sse4-i32x4") options)
      (lanes-test-check "initializationOptions.defines" (equal (plist-get options :defines) ["N=16"]) options)
      (lanes-test-check "initializationOptions.diagnostics"
                        (string-match-p "\"diagnostics\":{\"L0202\":\"information\"}" (cdr init)) (cdr init)))))

(lanes-test-check "didOpen" (lanes-test-wait (lambda () (lanes-test-messages "textDocument/didOpen"))))

(let ((buffer (lanes-show-vector-ir)))
  (lanes-test-check "vector IR buffer" (equal (buffer-name buffer) "*lanes: k.vector-ir.ll*") (buffer-name buffer))
  (with-current-buffer buffer
    (lanes-test-check "vector IR text" (string-prefix-p "; vector IR of k.cl for sse4-i32x4" (buffer-string)) (buffer-string))
    (lanes-test-check "vector IR read-only" buffer-read-only)))

(find-file (expand-file-name "k.cl" lanes-test-dir))
(let ((buffer (lanes-show-asm "k")))
  (lanes-test-check "asm buffer for kernel k" (equal (buffer-name buffer) "*lanes: k.k.asm.s*") (buffer-name buffer)))

(find-file (expand-file-name "k.cl" lanes-test-dir))
(let ((result (lanes-build)))
  (lanes-test-check "build result" (string-suffix-p "/k.o" (plist-get result :object)) result))

(lanes-set-target "avx2-i32x8")
(lanes-test-check "didChangeConfiguration"
                  (lanes-test-wait
                   (lambda ()
                     (seq-find (lambda (m)
                                 (equal (plist-get (plist-get (plist-get (plist-get (car m) :params) :settings) :lanes) :target)
                                        "avx2-i32x8"))
                               (lanes-test-messages "workspace/didChangeConfiguration"))))
                  (lanes-test-messages "workspace/didChangeConfiguration"))

(eglot-shutdown (eglot-current-server))
(lanes-test-check "shutdown" (lanes-test-wait (lambda () (lanes-test-messages "shutdown"))))

(princ (format "emacs %s: %d passed, %d failed\n" emacs-version lanes-test-passed lanes-test-failed))
(kill-emacs (if (> lanes-test-failed 0) 1 0))
