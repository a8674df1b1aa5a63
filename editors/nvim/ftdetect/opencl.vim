" *.cl is OpenCL C (Vim and Neovim default to Common Lisp for *.cl).
" `set filetype` rather than `setfiletype`, so that this wins over the default.
autocmd BufRead,BufNewFile *.cl set filetype=opencl
