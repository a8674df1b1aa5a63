[
  (field_expression)
  (assignment_expression)
  (init_declarator)
  (if_statement)
  (for_statement)
  (while_statement)
  (do_statement)
  (else_clause)
] @indent

(_ "{" "}" @end) @indent
(_ "(" ")" @end) @indent
