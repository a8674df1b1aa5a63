; OpenCL C highlighting on the tree-sitter-c grammar.
;
; tree-sitter-c does not know OpenCL's qualifiers: `__kernel` and `__global`
; parse as type names and the following `void`/`float` end up as plain
; identifiers inside ERROR nodes. The patterns below therefore match those
; words by spelling, on identifiers and type identifiers alike. They are
; written so that no two patterns capture the same node.

; --- C keywords ---------------------------------------------------------------

[
  "break" "case" "continue" "default" "do" "else" "for" "goto" "if" "return" "switch" "while"
] @keyword

[
  "const" "enum" "extern" "inline" "sizeof" "static" "struct" "typedef" "union" "volatile"
] @keyword

[
  "#define" "#elif" "#else" "#endif" "#if" "#ifdef" "#ifndef" "#include"
  (preproc_directive)
] @preproc

; --- OpenCL qualifiers (address spaces, kernel, image access) ----------------

((type_identifier) @keyword
  (#match? @keyword "^(__)?(kernel|global|constant|local|private|generic|read_only|write_only|read_write)$"))
((identifier) @keyword
  (#match? @keyword "^(__)?(kernel|global|constant|local|private|generic|read_only|write_only|read_write)$"))

; --- types ----------------------------------------------------------------------

(primitive_type) @type
(sized_type_specifier) @type
((type_identifier) @type
  (#not-match? @type "^(__)?(kernel|global|constant|local|private|generic|read_only|write_only|read_write)$"))
; scalar and vector types where the C grammar saw an identifier (after a qualifier, in casts)
((identifier) @type
  (#match? @type "^((void|bool|half|float|double|u?char|u?short|u?int|u?long)(2|3|4|8|16)?|size_t|ptrdiff_t|intptr_t|uintptr_t|image[123]d(_array|_buffer)?_t|sampler_t|event_t)$"))

; --- functions ------------------------------------------------------------------

; OpenCL builtins: work-item and sub-group functions, synchronization, vector
; data, conversions, and the common math/integer/relational functions
(call_expression
  function: (identifier) @function.builtin
  (#match? @function.builtin "^(get_(work_dim|global_size|global_id|local_size|local_id|num_groups|group_id|global_offset|global_linear_id|local_linear_id|enqueued_local_size|sub_group_size|max_sub_group_size|num_sub_groups|sub_group_id|sub_group_local_id)|sub_group_(any|all|broadcast|barrier|reduce_(add|min|max)|scan_(inclusive|exclusive)_(add|min|max))|work_group_(barrier|any|all|broadcast)|barrier|mem_fence|read_mem_fence|write_mem_fence|vload(2|3|4|8|16|_half[0-9]*)|vstore(2|3|4|8|16|_half[0-9]*(_rt[enpz])?)|convert_[a-z]+[0-9]*(_sat)?(_rt[enpz])?|as_[a-z]+[0-9]*|atomic_[a-z_]+|sqrt|rsqrt|fabs|fmin|fmax|fma|mad|floor|ceil|round|trunc|exp|exp2|log|log2|pow|sin|cos|tan|atan|atan2|tanh|(native|half)_[a-z0-9]+|min|max|clamp|abs|abs_diff|mul24|mad24|popcount|clz|rotate|select|mix|step|sign|dot|cross|length|normalize|isnan|isinf|isfinite|any|all)$"))
(call_expression
  function: (identifier) @function
  (#not-match? @function "^(get_(work_dim|global_size|global_id|local_size|local_id|num_groups|group_id|global_offset|global_linear_id|local_linear_id|enqueued_local_size|sub_group_size|max_sub_group_size|num_sub_groups|sub_group_id|sub_group_local_id)|sub_group_(any|all|broadcast|barrier|reduce_(add|min|max)|scan_(inclusive|exclusive)_(add|min|max))|work_group_(barrier|any|all|broadcast)|barrier|mem_fence|read_mem_fence|write_mem_fence|vload(2|3|4|8|16|_half[0-9]*)|vstore(2|3|4|8|16|_half[0-9]*(_rt[enpz])?)|convert_[a-z]+[0-9]*(_sat)?(_rt[enpz])?|as_[a-z]+[0-9]*|atomic_[a-z_]+|sqrt|rsqrt|fabs|fmin|fmax|fma|mad|floor|ceil|round|trunc|exp|exp2|log|log2|pow|sin|cos|tan|atan|atan2|tanh|(native|half)_[a-z0-9]+|min|max|clamp|abs|abs_diff|mul24|mad24|popcount|clz|rotate|select|mix|step|sign|dot|cross|length|normalize|isnan|isinf|isfinite|any|all)$"))
(function_declarator
  declarator: (identifier) @function)
(preproc_function_def
  name: (identifier) @function.special)

; --- literals, fields, comments ---------------------------------------------

(string_literal) @string
(system_lib_string) @string
(escape_sequence) @string.escape
(char_literal) @string
(number_literal) @number
[(true) (false) (null)] @constant
(field_identifier) @property
(statement_identifier) @label
(comment) @comment

; --- operators and punctuation --------------------------------------------------

[
  "--" "-" "-=" "->" "=" "!=" "*" "&" "&&" "+" "++" "+=" "<" "==" ">" "||"
  "!" "~" "/" "/=" "%" "%=" "<=" ">=" "<<" ">>" "<<=" ">>=" "|" "|=" "^" "^=" "&=" "*=" "?" ":"
] @operator

["." ";" ","] @punctuation.delimiter
["(" ")" "[" "]" "{" "}"] @punctuation.bracket
