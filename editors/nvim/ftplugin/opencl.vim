" OpenCL C: C's editing settings.
if exists('b:did_ftplugin')
  finish
endif
runtime! ftplugin/c.vim
let b:did_ftplugin = 1
setlocal commentstring=//\ %s
