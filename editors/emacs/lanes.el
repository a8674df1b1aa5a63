;;; lanes.el --- OpenCL C with the lanes language server (eglot)  -*- lexical-binding: t; -*-

;; Version: 0.1.0
;; Package-Requires: ((emacs "27.1") (eglot "1.9"))
;; Keywords: languages, opencl, simd
;; SPDX-License-Identifier: Apache-2.0 OR MIT

;;; Commentary:

;; Connects `opencl-mode' buffers (*.cl) to `lanes lsp' through eglot (built
;; into Emacs 29; from GNU ELPA or Debian's elpa-eglot before that).  If no
;; `opencl-mode' is installed, a minimal one derived from `c-mode' is defined.
;;
;;   (add-to-list 'load-path "/path/to/lanes/editors/emacs")
;;   (require 'lanes)
;;   (setq lanes-server-path "/path/to/lanes/target/release/lanes")  ; default: "lanes" on PATH
;;   (add-hook 'opencl-mode-hook #'eglot-ensure)                      ; start automatically
;;
;; What you get from eglot: diagnostics (flymake) with the L0xxx codes, hover
;; in eldoc (shape and why), code actions (M-x eglot-code-actions: Guard with
;; any(), Add fast path, Suppress), inlay hints (Emacs 29+:
;; `eglot-inlay-hints-mode', turned on here).  Eglot has no code lenses and
;; no semantic tokens; the commands below stand in for the code lens.
;;
;; Commands: `lanes-build', `lanes-show-vector-ir', `lanes-show-asm',
;; `lanes-explain' (with a prefix argument they ask for a kernel name) and
;; `lanes-set-target'.  Settings: `lanes-target', `lanes-defines',
;; `lanes-include-paths', `lanes-diagnostics'; they are sent as
;; initializationOptions, and `lanes.toml' at the project root takes the same keys.

;;; Code:

(require 'cc-mode)
(require 'eglot)
(require 'jsonrpc)
(require 'subr-x)

(defgroup lanes nil
  "OpenCL C with the lanes language server."
  :group 'languages
  :prefix "lanes-")

(defconst lanes-targets
  '("host" "sse4-i32x4" "sse4-i32x8" "avx2-i32x8" "avx2-i32x16"
    "avx512skx-x8" "avx512skx-x16" "neon-i32x4")
  "SIMD targets of lanes (ISPC's names; the width is the number at the end).")

(defcustom lanes-server-path "lanes"
  "The lanes binary, started as `lanes lsp'.
A bare name is looked up on `exec-path'."
  :type 'string)

(defcustom lanes-target nil
  "SIMD target, or nil for `lanes.toml' or the server's default (host)."
  :type `(choice (const :tag "lanes.toml or host" nil)
                 ,@(mapcar (lambda (tg) `(const ,tg)) lanes-targets)))

(defcustom lanes-defines nil
  "Preprocessor definitions as with -D, e.g. (\"N=16\" \"DEBUG\")."
  :type '(repeat string))

(defcustom lanes-include-paths nil
  "Directories for #include \"...\", as with -I, relative to the project root."
  :type '(repeat string))

(defcustom lanes-diagnostics nil
  "Severity per diagnostic code, e.g. ((\"L0202\" . \"information\"))."
  :type '(alist :key-type string
                :value-type (choice (const "warning") (const "information")
                                    (const "hint") (const "off"))))

;;;; opencl-mode, if there is none

(defconst lanes--opencl-keywords
  (list
   (cons (regexp-opt '("__kernel" "kernel" "__global" "global" "__constant" "constant"
                       "__local" "local" "__private" "private" "__generic" "generic"
                       "__read_only" "read_only" "__write_only" "write_only"
                       "__read_write" "read_write")
                     'symbols)
         'font-lock-keyword-face)
   (cons (concat "\\_<\\(?:bool\\|u?char\\|u?short\\|u?int\\|u?long\\|half\\|float\\|double\\)"
                 "\\(?:2\\|3\\|4\\|8\\|16\\)?\\_>")
         'font-lock-type-face)
   (cons (regexp-opt '("size_t" "ptrdiff_t" "intptr_t" "uintptr_t" "image2d_t" "image3d_t"
                       "sampler_t" "event_t")
                     'symbols)
         'font-lock-type-face)
   (cons (concat "\\_<\\(?:get_\\(?:work_dim\\|global_size\\|global_id\\|local_size\\|local_id"
                 "\\|num_groups\\|group_id\\|global_offset\\|sub_group_size\\|sub_group_local_id\\)"
                 "\\|sub_group_\\(?:any\\|all\\|broadcast\\|reduce_[a-z]+\\|scan_[a-z]+_[a-z]+\\)"
                 "\\|barrier\\|vload[0-9]+\\|vstore[0-9]+\\|convert_[a-z0-9_]+\\|as_[a-z0-9]+\\)\\_>")
         'font-lock-builtin-face))
  "Font lock additions for OpenCL C on top of C's.")

(unless (fboundp 'opencl-mode)
  (define-derived-mode opencl-mode c-mode "OpenCL"
    "Major mode for OpenCL C kernels: `c-mode' with OpenCL keywords and types."
    (font-lock-add-keywords nil lanes--opencl-keywords)))

(add-to-list 'auto-mode-alist '("\\.cl\\'" . opencl-mode))

;;;; The server

(defclass lanes-eglot-server (eglot-lsp-server) ()
  :documentation "The lanes language server.")

(defun lanes--object (plist)
  "PLIST, or an empty JSON object when it is nil."
  (or plist (make-hash-table :test #'equal)))

(defun lanes--options ()
  "The settings as sent to the server (initializationOptions, settings.lanes)."
  (let (options)
    (when lanes-target
      (setq options (plist-put options :target lanes-target)))
    (when lanes-defines
      (setq options (plist-put options :defines (vconcat lanes-defines))))
    (when lanes-include-paths
      (setq options (plist-put options :includePaths (vconcat lanes-include-paths))))
    (when lanes-diagnostics
      (let (codes)
        (dolist (entry lanes-diagnostics)
          (setq codes (plist-put codes (intern (concat ":" (car entry))) (cdr entry))))
        (setq options (plist-put options :diagnostics codes))))
    (lanes--object options)))

(cl-defmethod eglot-initialization-options ((_server lanes-eglot-server))
  (lanes--options))

(defun lanes--contact (&optional _interactive)
  "How eglot starts lanes: `lanes-server-path' lsp, with the lanes server class."
  (list 'lanes-eglot-server lanes-server-path "lsp"))

(add-to-list 'eglot-server-programs '(opencl-mode . lanes--contact))

(defun lanes--managed ()
  "Turn on inlay hints in lanes buffers (Emacs 29+)."
  (when (and (eglot-managed-p)
             (derived-mode-p 'opencl-mode)
             (fboundp 'eglot-inlay-hints-mode))
    (eglot-inlay-hints-mode 1)))

(add-hook 'eglot-managed-mode-hook #'lanes--managed)

;;;; Commands

(defconst lanes--titles
  '(("lanes.build" . "Build Object and Header")
    ("lanes.showVectorIR" . "Show Vector IR")
    ("lanes.showAsm" . "Show Assembly")
    ("lanes.explain" . "Explain Kernel")))

(defun lanes--server ()
  "The lanes server of the current buffer, or an error."
  (let ((server (eglot-current-server)))
    (unless (and server (object-of-class-p server 'lanes-eglot-server))
      (user-error "lanes: no lanes server for this buffer (M-x eglot in an OpenCL C file)"))
    server))

(defun lanes--execute (command kernel)
  "Run the server COMMAND on the current file (and KERNEL); return its result."
  (let* ((server (lanes--server))
         (uri (plist-get (eglot--TextDocumentIdentifier) :uri))
         (arguments (if (and kernel (not (string-empty-p kernel)))
                        (vector uri kernel)
                      (vector uri))))
    (condition-case err
        (jsonrpc-request server :workspace/executeCommand
                         (list :command command :arguments arguments))
      (jsonrpc-error
       (user-error "lanes: %s failed: %s" (cdr (assoc command lanes--titles))
                   (or (alist-get 'jsonrpc-error-message (cdr err)) err))))))

(defun lanes--read-kernel (arg)
  "A kernel name when ARG (the prefix argument) is given, else nil."
  (when arg (read-string "Kernel: ")))

(defun lanes--show (command kernel result)
  "Show the text RESULT of COMMAND (on KERNEL) in a read-only buffer in a split."
  (let* ((text (plist-get result :text))
         (language (or (plist-get result :language) "plaintext"))
         (base (file-name-base (or (buffer-file-name) (buffer-name))))
         (kind (pcase command
                 ("lanes.showVectorIR" "vector-ir") ("lanes.showAsm" "asm") (_ "explain")))
         (ext (pcase language ("llvm" "ll") ("asm" "s") (_ "txt")))
         (name (format "*lanes: %s*" (string-join (delq nil (list base kernel kind ext)) ".")))
         (buffer (get-buffer-create name)))
    (unless (stringp text)
      (user-error "lanes: the server sent no text"))
    (with-current-buffer buffer
      (let ((inhibit-read-only t))
        (erase-buffer)
        (insert text)
        (goto-char (point-min)))
      (pcase language
        ("llvm" (if (fboundp 'llvm-mode) (llvm-mode) (fundamental-mode)))
        ("asm" (asm-mode))
        (_ (text-mode)))
      (setq buffer-read-only t)
      (local-set-key (kbd "q") #'quit-window))
    (pop-to-buffer buffer '((display-buffer-reuse-window display-buffer-pop-up-window)))
    buffer))

(defun lanes-build (&optional kernel)
  "Build the current file's kernels (or KERNEL) into an object file and a C header."
  (interactive (list (lanes--read-kernel current-prefix-arg)))
  (let* ((result (lanes--execute "lanes.build" kernel))
         (object (plist-get result :object))
         (header (plist-get result :header)))
    (unless (stringp object)
      (user-error "lanes: the server did not say which files it wrote"))
    (message "lanes: built %s%s" (abbreviate-file-name object)
             (if (stringp header) (concat " and " (abbreviate-file-name header)) ""))
    result))

(defun lanes-show-vector-ir (&optional kernel)
  "Show the vector IR of the current file (or KERNEL)."
  (interactive (list (lanes--read-kernel current-prefix-arg)))
  (lanes--show "lanes.showVectorIR" kernel (lanes--execute "lanes.showVectorIR" kernel)))

(defun lanes-show-asm (&optional kernel)
  "Show the assembly of the current file (or KERNEL) for the current target."
  (interactive (list (lanes--read-kernel current-prefix-arg)))
  (lanes--show "lanes.showAsm" kernel (lanes--execute "lanes.showAsm" kernel)))

(defun lanes-explain (&optional kernel)
  "Explain the current file's kernels (or KERNEL): shapes, divergence, accesses."
  (interactive (list (lanes--read-kernel current-prefix-arg)))
  (lanes--show "lanes.explain" kernel (lanes--execute "lanes.explain" kernel)))

(defun lanes-set-target (target)
  "Set the SIMD TARGET and tell the running lanes servers."
  (interactive (list (completing-read "lanes target: " lanes-targets nil t nil nil lanes-target)))
  (unless (member target lanes-targets)
    (user-error "lanes: unknown target %s" target))
  (setq lanes-target target)
  (dolist (server (seq-filter (lambda (s) (object-of-class-p s 'lanes-eglot-server))
                              (apply #'append (hash-table-values eglot--servers-by-project))))
    (jsonrpc-notify server :workspace/didChangeConfiguration
                    (list :settings (list :lanes (lanes--options)))))
  (message "lanes: target %s" target))

(provide 'lanes)
;;; lanes.el ends here
