; kernels and helper functions in the outline panel
(function_definition
  declarator: (function_declarator
    declarator: (identifier) @name)) @item

(preproc_def
  "#define" @context
  name: (_) @name) @item

(preproc_function_def
  "#define" @context
  name: (_) @name) @item
