//! Tests of the parser, written against a compact S-expression printer of
//! the tree so that expectations are readable.

use super::*;
use crate::diag::Diagnostic;
use crate::lexer::lex;
use crate::source::FileId;

// ---------------------------------------------------------------------------
// The printer. It also records every node id and checks that every child
// span lies inside its parent's span.

#[derive(Default)]
struct Printer {
    ids: Vec<u32>,
    bad_spans: Vec<String>,
}

fn opt<T>(p: &mut Printer, x: &Option<T>, f: impl FnOnce(&mut Printer, &T) -> String) -> String {
    match x {
        Some(x) => f(p, x),
        None => "_".to_string(),
    }
}

impl Printer {
    fn child(&mut self, parent: Span, child: Span, what: &str) {
        if !parent.contains(child) {
            self.bad_spans
                .push(format!("{what} {child:?} outside {parent:?}"));
        }
    }

    fn item(&mut self, item: &Item) -> String {
        self.ids.push(item.id.0);
        match &item.kind {
            ItemKind::Function(f) => {
                let mut out = format!("(function {} {}", self.spec(&f.spec), f.name.name);
                self.child(item.span, f.name.span, "function name");
                if !f.return_derived.is_empty() {
                    out += &format!(" (ret{})", self.derived_list(&f.return_derived));
                }
                let params: Vec<String> = f.params.iter().map(|p| self.param(p)).collect();
                out += &format!(
                    " (params{}{})",
                    params.iter().map(|p| format!(" {p}")).collect::<String>(),
                    if f.variadic { " ..." } else { "" }
                );
                match &f.body {
                    Some(b) => {
                        self.child(item.span, b.span, "body");
                        out += &format!(" {}", self.block(b));
                    }
                    None => out += " ;",
                }
                out + ")"
            }
            ItemKind::Declaration(d) => {
                self.child(item.span, d.span, "declaration");
                self.declaration(d)
            }
            ItemKind::Error => "(error)".to_string(),
        }
    }

    fn spec(&mut self, s: &DeclSpec) -> String {
        let mut words: Vec<String> = Vec::new();
        match s.storage {
            Storage::None => {}
            Storage::Typedef => words.push("typedef".into()),
            Storage::Static => words.push("static".into()),
            Storage::Extern => words.push("extern".into()),
        }
        if s.kernel.is_some() {
            words.push("kernel".into());
        }
        if s.inline {
            words.push("inline".into());
        }
        if let Some((a, _)) = s.address_space {
            words.push(a.keyword().trim_start_matches("__").into());
        }
        if s.quals.is_const {
            words.push("const".into());
        }
        if s.quals.is_volatile {
            words.push("volatile".into());
        }
        if s.quals.is_restrict {
            words.push("restrict".into());
        }
        for a in &s.attributes {
            words.push(format!(
                "(attr {}{})",
                a.name.name,
                if a.args.is_some() { "(..)" } else { "" }
            ));
        }
        words.push(self.base(&s.base));
        words.join(" ")
    }

    fn base(&mut self, b: &BaseType) -> String {
        match b {
            BaseType::Builtin(n) => n.to_string(),
            BaseType::Typedef(i) => format!("'{}", i.name),
            BaseType::Struct(s) => self.struct_type("struct", s),
            BaseType::Union(s) => self.struct_type("union", s),
            BaseType::Enum(e) => {
                let mut out = format!("(enum {}", e.tag.as_ref().map_or("_", |t| t.name.as_str()));
                if let Some(vs) = &e.variants {
                    for (name, value) in vs {
                        match value {
                            Some(v) => out += &format!(" ({} {})", name.name, self.expr(v)),
                            None => out += &format!(" {}", name.name),
                        }
                    }
                }
                out + ")"
            }
            BaseType::Error => "<error>".to_string(),
        }
    }

    fn struct_type(&mut self, kw: &str, s: &StructType) -> String {
        let mut out = format!("({kw} {}", s.tag.as_ref().map_or("_", |t| t.name.as_str()));
        if let Some(fields) = &s.fields {
            out += " {";
            for f in fields {
                self.ids.push(f.id.0);
                self.child(s.span, f.span, "field");
                out += &format!(
                    " (field {} {}",
                    self.spec(&f.spec),
                    self.declarator(&f.declarator)
                );
                if let Some(w) = &f.bit_width {
                    out += &format!(" : {}", self.expr(w));
                }
                out += ")";
            }
            out += " }";
        }
        out + ")"
    }

    fn param(&mut self, p: &Param) -> String {
        self.ids.push(p.id.0);
        self.child(p.span, p.declarator.span, "param declarator");
        format!(
            "(param {} {})",
            self.spec(&p.spec),
            self.declarator(&p.declarator)
        )
    }

    fn derived_list(&mut self, ds: &[Derived]) -> String {
        let mut out = String::new();
        for d in ds {
            out += " ";
            out += &match d {
                Derived::Pointer {
                    quals,
                    address_space,
                    ..
                } => {
                    let mut s = "ptr".to_string();
                    if quals.is_const {
                        s += ":const";
                    }
                    if quals.is_volatile {
                        s += ":volatile";
                    }
                    if quals.is_restrict {
                        s += ":restrict";
                    }
                    if let Some(a) = address_space {
                        s += ":";
                        s += a.keyword().trim_start_matches("__");
                    }
                    s
                }
                Derived::Array { size: Some(e), .. } => format!("[{}]", self.expr(e)),
                Derived::Array { size: None, .. } => "[]".to_string(),
                Derived::Function {
                    params, variadic, ..
                } => {
                    let ps: Vec<String> = params.iter().map(|p| self.param(p)).collect();
                    format!(
                        "(fn{}{})",
                        ps.iter().map(|p| format!(" {p}")).collect::<String>(),
                        if *variadic { " ..." } else { "" }
                    )
                }
            };
        }
        out
    }

    fn declarator(&mut self, d: &Declarator) -> String {
        if let Some(n) = &d.name {
            self.child(d.span, n.span, "declarator name");
        }
        format!(
            "({}{})",
            d.name.as_ref().map_or("_", |n| n.name.as_str()),
            self.derived_list(&d.derived)
        )
    }

    fn declaration(&mut self, d: &Declaration) -> String {
        let mut out = format!("(decl {}", self.spec(&d.spec));
        self.child(d.span, d.spec.span, "spec");
        for id in &d.declarators {
            self.ids.push(id.id.0);
            self.child(d.span, id.span, "init declarator");
            self.child(id.span, id.declarator.span, "declarator");
            let mut s = self.declarator(&id.declarator);
            if let Some(init) = &id.init {
                self.child(id.span, init.span(), "initializer");
                s.pop();
                s += &format!(" = {})", self.init(init));
            }
            out += " ";
            out += &s;
        }
        out + ")"
    }

    fn init(&mut self, i: &Initializer) -> String {
        match i {
            Initializer::Expr(e) => self.expr(e),
            Initializer::List { items, span } => {
                let mut parts = Vec::new();
                for (d, init) in items {
                    self.child(*span, init.span(), "list element");
                    let d = match d {
                        Some(Designator::Field(f)) => format!(".{}=", f.name),
                        Some(Designator::Index(e)) => format!("[{}]=", self.expr(e)),
                        None => String::new(),
                    };
                    parts.push(format!("{d}{}", self.init(init)));
                }
                format!("{{{}}}", parts.join(" "))
            }
        }
    }

    fn type_name(&mut self, t: &TypeName) -> String {
        self.child(t.span, t.spec.span, "type spec");
        format!(
            "(type {}{})",
            self.spec(&t.spec),
            self.derived_list(&t.declarator.derived)
        )
    }

    fn block(&mut self, b: &Block) -> String {
        self.ids.push(b.id.0);
        let mut out = "(block".to_string();
        for s in &b.stmts {
            self.child(b.span, s.span, "statement");
            out += " ";
            out += &self.stmt(s);
        }
        out + ")"
    }

    fn stmt(&mut self, s: &Stmt) -> String {
        self.ids.push(s.id.0);
        let sp = s.span;
        let sub = |p: &mut Printer, x: &Stmt| {
            p.child(sp, x.span, "sub-statement");
            p.stmt(x)
        };
        match &s.kind {
            StmtKind::Block(b) => self.block(b),
            StmtKind::Decl(d) => {
                self.child(sp, d.span, "declaration");
                self.declaration(d)
            }
            StmtKind::Expr(e) => {
                self.child(sp, e.span, "expression");
                format!("(expr {})", self.expr(e))
            }
            StmtKind::If { cond, then, els } => {
                let c = self.expr(cond);
                let t = sub(self, then);
                match els {
                    Some(e) => format!("(if {c} {t} {})", sub(self, e)),
                    None => format!("(if {c} {t})"),
                }
            }
            StmtKind::While { cond, body } => {
                format!("(while {} {})", self.expr(cond), sub(self, body))
            }
            StmtKind::DoWhile { body, cond } => {
                let b = sub(self, body);
                format!("(do {b} {})", self.expr(cond))
            }
            StmtKind::For {
                init,
                cond,
                step,
                body,
            } => {
                let i = opt(self, init, |p, s| p.stmt(s));
                let c = opt(self, cond, |p, e| p.expr(e));
                let st = opt(self, step, |p, e| p.expr(e));
                format!("(for {i} {c} {st} {})", sub(self, body))
            }
            StmtKind::Switch { cond, body } => {
                format!("(switch {} {})", self.expr(cond), sub(self, body))
            }
            StmtKind::Case { value, body } => {
                format!("(case {} {})", self.expr(value), sub(self, body))
            }
            StmtKind::Default { body } => format!("(default {})", sub(self, body)),
            StmtKind::Break => "(break)".into(),
            StmtKind::Continue => "(continue)".into(),
            StmtKind::Return(None) => "(return)".into(),
            StmtKind::Return(Some(e)) => format!("(return {})", self.expr(e)),
            StmtKind::Goto(l) => format!("(goto {})", l.name),
            StmtKind::Labeled { label, body } => {
                format!("(label {} {})", label.name, sub(self, body))
            }
            StmtKind::Empty => "(empty)".into(),
            StmtKind::Error => "(error)".into(),
        }
    }

    fn expr(&mut self, e: &Expr) -> String {
        self.ids.push(e.id.0);
        let sp = e.span;
        let sub = |p: &mut Printer, x: &Expr| {
            p.child(sp, x.span, "operand");
            p.expr(x)
        };
        match &e.kind {
            ExprKind::IntLit {
                value,
                suffix,
                decimal,
            } => {
                let mut s = format!("(int {value}");
                if !decimal {
                    s += " x";
                }
                s += match suffix {
                    IntSuffix::None => "",
                    IntSuffix::U => " u",
                    IntSuffix::L => " l",
                    IntSuffix::UL => " ul",
                };
                s + ")"
            }
            ExprKind::FloatLit { value, suffix } => format!(
                "(float {value}{})",
                match suffix {
                    FloatSuffix::None => "",
                    FloatSuffix::F => " f",
                    FloatSuffix::H => " h",
                }
            ),
            ExprKind::CharLit(c) => format!("(char {c})"),
            ExprKind::StringLit(s) => format!("(str {s:?})"),
            ExprKind::Ident(i) => format!("(ident {})", i.name),
            ExprKind::Paren(x) => format!("(paren {})", sub(self, x)),
            ExprKind::Unary {
                op: op @ (UnaryOp::PostInc | UnaryOp::PostDec),
                operand,
            } => {
                format!("(post {} {})", op.symbol(), sub(self, operand))
            }
            ExprKind::Unary { op, operand } => {
                format!("(unary {} {})", op.symbol(), sub(self, operand))
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let l = sub(self, lhs);
                format!("(binary {} {l} {})", op.symbol(), sub(self, rhs))
            }
            ExprKind::Assign { op, lhs, rhs } => {
                let l = sub(self, lhs);
                format!(
                    "(assign {}= {l} {})",
                    op.map_or("", |o| o.symbol()),
                    sub(self, rhs)
                )
            }
            ExprKind::Conditional { cond, then, els } => {
                let c = sub(self, cond);
                let t = sub(self, then);
                format!("(cond {c} {t} {})", sub(self, els))
            }
            ExprKind::Comma { lhs, rhs } => {
                let l = sub(self, lhs);
                format!("(comma {l} {})", sub(self, rhs))
            }
            ExprKind::Call { callee, args } => {
                let mut s = format!("(call {}", sub(self, callee));
                for a in args {
                    s += " ";
                    s += &sub(self, a);
                }
                s + ")"
            }
            ExprKind::Index { base, index } => {
                let b = sub(self, base);
                format!("(index {b} {})", sub(self, index))
            }
            ExprKind::Member { base, field, arrow } => {
                self.child(sp, field.span, "field");
                format!(
                    "({} {} {})",
                    if *arrow { "->" } else { "." },
                    sub(self, base),
                    field.name
                )
            }
            ExprKind::Cast { ty, expr } => {
                self.child(sp, ty.span, "cast type");
                let t = self.type_name(ty);
                format!("(cast {t} {})", sub(self, expr))
            }
            ExprKind::VectorLiteral { ty, elems } => {
                self.child(sp, ty.span, "literal type");
                let mut s = format!("(vec {}", self.type_name(ty));
                for x in elems {
                    s += " ";
                    s += &sub(self, x);
                }
                s + ")"
            }
            ExprKind::CompoundLiteral { ty, init } => {
                self.child(sp, ty.span, "literal type");
                self.child(sp, init.span(), "literal initializer");
                format!("(compound {} {})", self.type_name(ty), self.init(init))
            }
            ExprKind::SizeofType(t) => format!("(sizeof-type {})", self.type_name(t)),
            ExprKind::SizeofExpr(x) => format!("(sizeof {})", sub(self, x)),
            ExprKind::AlignofType(t) => format!("(alignof {})", self.type_name(t)),
            ExprKind::VecStepType(t) => format!("(vec_step {})", self.type_name(t)),
            ExprKind::Error => "(error)".into(),
        }
    }
}

// ---------------------------------------------------------------------------
// Helpers.

fn parse_src(src: &str) -> (TranslationUnit, Vec<Diagnostic>) {
    let mut diags = Vec::new();
    let tokens = lex(FileId(0), src, &mut diags);
    let tu = parse(&tokens, &mut diags);
    (tu, diags)
}

/// Prints the whole unit and checks the structural invariants: unique node
/// ids below `node_count`, child spans inside parent spans.
fn print_tu(tu: &TranslationUnit) -> String {
    let mut p = Printer::default();
    let items: Vec<String> = tu.items.iter().map(|i| p.item(i)).collect();
    let mut ids = p.ids.clone();
    ids.sort_unstable();
    let n = ids.len();
    ids.dedup();
    assert_eq!(ids.len(), n, "node ids are not unique");
    assert!(
        ids.iter().all(|&i| i < tu.node_count),
        "node id beyond node_count {}",
        tu.node_count
    );
    assert!(p.bad_spans.is_empty(), "spans: {:?}", p.bad_spans);
    items.join("\n")
}

fn messages(diags: &[Diagnostic]) -> Vec<String> {
    diags.iter().map(|d| d.message.clone()).collect()
}

/// The unit printed; no diagnostics allowed.
fn ok(src: &str) -> String {
    let (tu, diags) = parse_src(src);
    assert!(
        diags.is_empty(),
        "unexpected diagnostics for {src:?}: {:?}",
        messages(&diags)
    );
    print_tu(&tu)
}

/// The unit printed and the diagnostic messages.
fn with_errors(src: &str) -> (String, Vec<String>) {
    let (tu, diags) = parse_src(src);
    (print_tu(&tu), messages(&diags))
}

fn body_of(tu: &TranslationUnit) -> &Block {
    match tu.items.last().map(|i| &i.kind) {
        Some(ItemKind::Function(Function { body: Some(b), .. })) => b,
        other => panic!("no function body: {other:?}"),
    }
}

/// The statements of `void f() { SRC }`; no diagnostics allowed.
fn stmts(src: &str) -> String {
    let full = format!("void f() {{ {src} }}");
    let (tu, diags) = parse_src(&full);
    assert!(
        diags.is_empty(),
        "unexpected diagnostics for {src:?}: {:?}",
        messages(&diags)
    );
    print_tu(&tu);
    let mut p = Printer::default();
    body_of(&tu)
        .stmts
        .iter()
        .map(|s| p.stmt(s))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The expression of the statement `SRC;`; no diagnostics allowed.
fn expr(src: &str) -> String {
    let s = stmts(&format!("{src};"));
    s.strip_prefix("(expr ")
        .and_then(|s| s.strip_suffix(')'))
        .unwrap_or(&s)
        .to_string()
}

/// The statements of `void f() { SRC }` and the diagnostic messages.
fn stmts_err(src: &str) -> (String, Vec<String>) {
    let full = format!("void f() {{ {src} }}");
    let (tu, diags) = parse_src(&full);
    print_tu(&tu);
    let mut p = Printer::default();
    let s = body_of(&tu)
        .stmts
        .iter()
        .map(|s| p.stmt(s))
        .collect::<Vec<_>>()
        .join(" ");
    (s, messages(&diags))
}

fn text(src: &str, span: Span) -> &str {
    &src[span.start as usize..span.end as usize]
}

// ---------------------------------------------------------------------------
// Expressions.

#[test]
fn precedence_table() {
    assert_eq!(
        expr("a + b * 2"),
        "(binary + (ident a) (binary * (ident b) (int 2)))"
    );
    assert_eq!(
        expr("a * b + c"),
        "(binary + (binary * (ident a) (ident b)) (ident c))"
    );
    assert_eq!(
        expr("a % b / c"),
        "(binary / (binary % (ident a) (ident b)) (ident c))"
    );
    assert_eq!(
        expr("a << b + c"),
        "(binary << (ident a) (binary + (ident b) (ident c)))"
    );
    assert_eq!(
        expr("a < b << c"),
        "(binary < (ident a) (binary << (ident b) (ident c)))"
    );
    assert_eq!(
        expr("a == b < c"),
        "(binary == (ident a) (binary < (ident b) (ident c)))"
    );
    assert_eq!(
        expr("a & b == c"),
        "(binary & (ident a) (binary == (ident b) (ident c)))"
    );
    assert_eq!(
        expr("a ^ b & c"),
        "(binary ^ (ident a) (binary & (ident b) (ident c)))"
    );
    assert_eq!(
        expr("a | b ^ c"),
        "(binary | (ident a) (binary ^ (ident b) (ident c)))"
    );
    assert_eq!(
        expr("a && b | c"),
        "(binary && (ident a) (binary | (ident b) (ident c)))"
    );
    assert_eq!(
        expr("a || b && c"),
        "(binary || (ident a) (binary && (ident b) (ident c)))"
    );
    assert_eq!(
        expr("a >= b != c <= d"),
        "(binary != (binary >= (ident a) (ident b)) (binary <= (ident c) (ident d)))"
    );
    assert_eq!(
        expr("a > b >> c"),
        "(binary > (ident a) (binary >> (ident b) (ident c)))"
    );
}

#[test]
fn associativity() {
    assert_eq!(
        expr("a - b - c"),
        "(binary - (binary - (ident a) (ident b)) (ident c))"
    );
    assert_eq!(
        expr("a = b = c"),
        "(assign = (ident a) (assign = (ident b) (ident c)))"
    );
    assert_eq!(
        expr("x += y -= z"),
        "(assign += (ident x) (assign -= (ident y) (ident z)))"
    );
    assert_eq!(
        expr("a ? b : c ? d : e"),
        "(cond (ident a) (ident b) (cond (ident c) (ident d) (ident e)))"
    );
    assert_eq!(
        expr("a ? b, c : d"),
        "(cond (ident a) (comma (ident b) (ident c)) (ident d))"
    );
    assert_eq!(
        expr("a, b, c"),
        "(comma (comma (ident a) (ident b)) (ident c))"
    );
    assert_eq!(
        expr("a = b ? c : d"),
        "(assign = (ident a) (cond (ident b) (ident c) (ident d)))"
    );
    assert_eq!(
        expr("a = b, c"),
        "(comma (assign = (ident a) (ident b)) (ident c))"
    );
}

#[test]
fn every_assignment_operator() {
    for op in ["*", "/", "%", "+", "-", "<<", ">>", "&", "^", "|"] {
        assert_eq!(
            expr(&format!("a {op}= b")),
            format!("(assign {op}= (ident a) (ident b))")
        );
    }
}

#[test]
fn unary_and_postfix() {
    assert_eq!(expr("-a * b"), "(binary * (unary - (ident a)) (ident b))");
    assert_eq!(
        expr("!a && ~b"),
        "(binary && (unary ! (ident a)) (unary ~ (ident b)))"
    );
    assert_eq!(expr("*p++"), "(unary * (post ++ (ident p)))");
    assert_eq!(expr("&a[1]"), "(unary & (index (ident a) (int 1)))");
    assert_eq!(
        expr("++a + --b"),
        "(binary + (unary ++ (ident a)) (unary -- (ident b)))"
    );
    assert_eq!(
        expr("a-- - +b"),
        "(binary - (post -- (ident a)) (unary + (ident b)))"
    );
    assert_eq!(expr("s.a->b.xy"), "(. (-> (. (ident s) a) b) xy)");
    assert_eq!(
        expr("f(a, b + 1)(c)"),
        "(call (call (ident f) (ident a) (binary + (ident b) (int 1))) (ident c))"
    );
    assert_eq!(expr("f()"), "(call (ident f))");
    assert_eq!(
        expr("get_global_id(0)"),
        "(call (ident get_global_id) (int 0 x))"
    );
    assert_eq!(
        expr("a[i][j]"),
        "(index (index (ident a) (ident i)) (ident j))"
    );
}

#[test]
fn sizeof_alignof_vec_step() {
    assert_eq!(
        expr("sizeof x + 1"),
        "(binary + (sizeof (ident x)) (int 1))"
    );
    assert_eq!(
        expr("sizeof(int) * 2"),
        "(binary * (sizeof-type (type int)) (int 2))"
    );
    assert_eq!(expr("sizeof(x)"), "(sizeof (paren (ident x)))");
    assert_eq!(expr("sizeof(float4 *)"), "(sizeof-type (type float4 ptr))");
    assert_eq!(expr("sizeof -x"), "(sizeof (unary - (ident x)))");
    assert_eq!(expr("vec_step(float4)"), "(vec_step (type float4))");
    assert_eq!(expr("vec_step(v)"), "(call (ident vec_step) (ident v))");
    assert_eq!(expr("_Alignof(int)"), "(alignof (type int))");
    assert_eq!(expr("__alignof__(struct S)"), "(alignof (type (struct S)))");
}

#[test]
fn casts_versus_parentheses() {
    assert_eq!(expr("(float)x"), "(cast (type float) (ident x))");
    assert_eq!(expr("(x)"), "(paren (ident x))");
    assert_eq!(expr("(float)(x)"), "(cast (type float) (paren (ident x)))");
    assert_eq!(expr("(float)-x"), "(cast (type float) (unary - (ident x)))");
    assert_eq!(
        expr("(int)(float)x"),
        "(cast (type int) (cast (type float) (ident x)))"
    );
    assert_eq!(expr("(unsigned int)x"), "(cast (type uint) (ident x))");
    assert_eq!(
        expr("(const __global float *)p"),
        "(cast (type global const float ptr) (ident p))"
    );
    assert_eq!(
        expr("(struct S *)p"),
        "(cast (type (struct S) ptr) (ident p))"
    );
    assert_eq!(expr("(a)(b)"), "(call (paren (ident a)) (ident b))");
    assert_eq!(expr("(a) - b"), "(binary - (paren (ident a)) (ident b))");
    assert_eq!(
        expr("(float)(x)[0]"),
        "(cast (type float) (index (paren (ident x)) (int 0 x)))"
    );
    assert_eq!(
        expr("(float)x + y"),
        "(binary + (cast (type float) (ident x)) (ident y))"
    );
    assert_eq!(expr("(float *)0"), "(cast (type float ptr) (int 0 x))");
}

#[test]
fn casts_to_typedef_names_follow_scoping() {
    let src = "typedef float T; void f() { x = (T)y; { int T; x = (T)-y; } x = (T)-y; }";
    let out = ok(src);
    assert!(
        out.contains("(expr (assign = (ident x) (cast (type 'T) (ident y))))"),
        "{out}"
    );
    assert!(out.contains("(block (decl int (T)) (expr (assign = (ident x) (binary - (paren (ident T)) (ident y)))))"), "{out}");
    assert!(
        out.ends_with("(expr (assign = (ident x) (cast (type 'T) (unary - (ident y)))))))"),
        "{out}"
    );
}

#[test]
fn vector_literals() {
    assert_eq!(
        expr("(float4)(a, b, c, d)"),
        "(vec (type float4) (ident a) (ident b) (ident c) (ident d))"
    );
    assert_eq!(
        expr("(float2)(a, b).x"),
        "(. (vec (type float2) (ident a) (ident b)) x)"
    );
    assert_eq!(
        expr("(float4)(1.0f)"),
        "(cast (type float4) (paren (float 1 f)))"
    );
    assert_eq!(
        expr("(float4)((float2)(a, b), c, d)"),
        "(vec (type float4) (vec (type float2) (ident a) (ident b)) (ident c) (ident d))"
    );
    assert_eq!(
        expr("(int2)(a = 1, b)"),
        "(vec (type int2) (assign = (ident a) (int 1)) (ident b))"
    );
    assert_eq!(
        expr("(float4)((a, b))"),
        "(cast (type float4) (paren (paren (comma (ident a) (ident b)))))"
    );
}

#[test]
fn literals() {
    assert_eq!(expr("42"), "(int 42)");
    assert_eq!(expr("0x1Fu"), "(int 31 x u)");
    assert_eq!(expr("017"), "(int 15 x)");
    assert_eq!(expr("0b11"), "(int 3 x)");
    assert_eq!(expr("7UL"), "(int 7 ul)");
    assert_eq!(expr("7l"), "(int 7 l)");
    assert_eq!(expr("1.5f"), "(float 1.5 f)");
    assert_eq!(expr("1e3"), "(float 1000)");
    assert_eq!(expr(".5h"), "(float 0.5 h)");
    assert_eq!(expr("0x1.8p3"), "(float 12)");
    assert_eq!(expr("'a'"), "(char 97)");
    assert_eq!(expr(r"'\n'"), "(char 10)");
    assert_eq!(expr(r"'\x41'"), "(char 65)");
    assert_eq!(expr(r"'\0'"), "(char 0)");
    assert_eq!(expr(r"'\''"), "(char 39)");
    assert_eq!(expr(r#""ab" "c\n""#), "(str \"abc\\n\")");
    assert_eq!(expr("-1"), "(unary - (int 1))");
}

#[test]
fn literal_errors_are_precise() {
    let cases = [
        ("12abc", "invalid suffix `abc` on integer constant", "abc"),
        ("0x", "expected hexadecimal digits after `0x`", "0x"),
        ("09", "invalid digit `9` in octal constant", "9"),
        ("1e+", "exponent has no digits", "e+"),
        (
            "18446744073709551616",
            "integer constant is too large",
            "18446744073709551616",
        ),
        ("''", "empty character constant", "''"),
        (
            "'ab'",
            "multi-character character constants are not supported",
            "'ab'",
        ),
        ("1.5q", "invalid suffix `q` on floating constant", "q"),
    ];
    for (lit, message, at) in cases {
        let src = format!("void f() {{ x = {lit}; y = 1; }}");
        let (tu, diags) = parse_src(&src);
        assert_eq!(diags.len(), 1, "{lit}: {:?}", messages(&diags));
        assert_eq!(diags[0].code, Code::InvalidToken, "{lit}");
        assert_eq!(diags[0].message, message, "{lit}");
        assert_eq!(text(&src, diags[0].span), at, "{lit}");
        let out = print_tu(&tu);
        assert!(
            out.contains("(expr (assign = (ident x) (error))) (expr (assign = (ident y) (int 1)))"),
            "{out}"
        );
    }
}

#[test]
fn literal_problems_with_a_meaning_keep_the_value() {
    let (out, errs) = stmts_err("x = 5ll; y = 1.0L;");
    assert_eq!(
        out,
        "(expr (assign = (ident x) (int 5 l))) (expr (assign = (ident y) (float 1)))"
    );
    assert_eq!(errs.len(), 2);
    assert!(
        errs[0].contains("`long long` literals are not supported"),
        "{errs:?}"
    );
    assert!(errs[1].contains("`long double`"), "{errs:?}");
}

// ---------------------------------------------------------------------------
// Declarations.

#[test]
fn declarators() {
    assert_eq!(
        ok("kernel void k(__global float * restrict p) {}"),
        "(function kernel void k (params (param global float (p ptr:restrict))) (block))"
    );
    assert_eq!(ok("float (*p)[3];"), "(decl float (p [(int 3)] ptr))");
    assert_eq!(ok("float *a[3];"), "(decl float (a ptr [(int 3)]))");
    assert_eq!(ok("int a[2][3];"), "(decl int (a [(int 3)] [(int 2)]))");
    assert_eq!(
        ok("int * const * volatile p;"),
        "(decl int (p ptr:const ptr:volatile))"
    );
    assert_eq!(
        ok("global int * local * p;"),
        "(decl global int (p ptr:local ptr))"
    );
    assert_eq!(ok("int a[] = {1};"), "(decl int (a [] = {(int 1)}))");
    assert_eq!(ok("int ((x));"), "(decl int (x))");
    assert_eq!(
        ok("int (*fp)(int, float *);"),
        "(decl int (fp (fn (param int (_)) (param float (_ ptr))) ptr))"
    );
    assert_eq!(
        ok("const float a = 1, *b;"),
        "(decl const float (a = (int 1)) (b ptr))"
    );
}

#[test]
fn functions_and_parameters() {
    assert_eq!(
        ok("float *f(int x) { return 0; }"),
        "(function float f (ret ptr) (params (param int (x))) (block (return (int 0 x))))"
    );
    assert_eq!(ok("void f(void);"), "(function void f (params) ;)");
    assert_eq!(ok("void f();"), "(function void f (params) ;)");
    assert_eq!(
        ok("int printf(constant char *fmt, ...);"),
        "(function int printf (params (param constant char (fmt ptr)) ...) ;)"
    );
    assert_eq!(
        ok("void f(int, float *);"),
        "(function void f (params (param int (_)) (param float (_ ptr))) ;)"
    );
    assert_eq!(
        ok("void f(int a[3]);"),
        "(function void f (params (param int (a [(int 3)]))) ;)"
    );
    assert_eq!(
        ok("__kernel void k(__read_only image2d_t img, sampler_t s) {}"),
        "(function kernel void k (params (param image2d_t (img)) (param sampler_t (s))) (block))"
    );
    assert_eq!(
        ok("static inline int g(int a) { return a; }"),
        "(function static inline int g (params (param int (a))) (block (return (ident a))))"
    );
    assert_eq!(
        ok("float (*h(int a))[3];"),
        "(function float h (ret [(int 3)] ptr) (params (param int (a))) ;)"
    );
}

#[test]
fn typedef_of_a_function_type_is_a_declaration() {
    assert_eq!(
        ok("typedef int F(int); F *p;"),
        "(decl typedef int (F (fn (param int (_)))))\n(decl 'F (p ptr))"
    );
}

#[test]
fn attributes_are_kept() {
    let src = "__kernel __attribute__((reqd_work_group_size(64, 1, 1))) void k(global int *p) __attribute__((vec_type_hint(float4))) { int x __attribute__((aligned(16))) = 1; }";
    let (tu, diags) = parse_src(src);
    assert!(diags.is_empty(), "{:?}", messages(&diags));
    let ItemKind::Function(f) = &tu.items[0].kind else {
        panic!()
    };
    let names: Vec<&str> = f
        .spec
        .attributes
        .iter()
        .map(|a| a.name.name.as_str())
        .collect();
    assert_eq!(names, ["reqd_work_group_size", "vec_type_hint"]);
    assert_eq!(text(src, f.spec.attributes[0].args.unwrap()), "64, 1, 1");
    assert_eq!(
        text(src, f.spec.attributes[0].span),
        "reqd_work_group_size(64, 1, 1)"
    );
    assert_eq!(text(src, f.spec.attributes[1].args.unwrap()), "float4");
    assert_eq!(
        print_tu(&tu),
        "(function kernel (attr reqd_work_group_size(..)) (attr vec_type_hint(..)) void k (params (param global int (p ptr))) (block (decl (attr aligned(..)) int (x = (int 1)))))"
    );
    assert_eq!(
        ok("struct __attribute__((packed)) S { char c; };"),
        "(decl (attr packed) (struct S { (field char (c)) }))"
    );
    assert_eq!(
        ok("int f(void) __attribute__((const));"),
        "(function (attr const) int f (params) ;)"
    );
}

#[test]
fn builtin_type_spellings_are_normalized() {
    let cases = [
        ("unsigned int", "uint"),
        ("unsigned", "uint"),
        ("int unsigned", "uint"),
        ("unsigned char", "uchar"),
        ("signed char", "char"),
        ("char", "char"),
        ("unsigned short int", "ushort"),
        ("unsigned short", "ushort"),
        ("short int", "short"),
        ("short", "short"),
        ("long int", "long"),
        ("signed long", "long"),
        ("unsigned long int", "ulong"),
        ("long unsigned", "ulong"),
        ("unsigned long", "ulong"),
        ("signed", "int"),
        ("signed int", "int"),
        ("const unsigned const", "const uint"),
        ("bool", "bool"),
        ("_Bool", "bool"),
        ("half", "half"),
        ("double", "double"),
        ("size_t", "size_t"),
        ("ptrdiff_t", "ptrdiff_t"),
        ("uintptr_t", "uintptr_t"),
        ("float4", "float4"),
        ("uchar16", "uchar16"),
        ("double3", "double3"),
        ("half8", "half8"),
        ("long2", "long2"),
        ("image2d_array_t", "image2d_array_t"),
        ("event_t", "event_t"),
    ];
    for (written, normalized) in cases {
        assert_eq!(
            ok(&format!("{written} x;")),
            format!("(decl {normalized} (x))"),
            "{written}"
        );
    }
}

#[test]
fn invalid_type_specifiers() {
    let (out, errs) = with_errors("long long x;");
    assert_eq!(out, "(decl long (x))");
    assert_eq!(
        errs,
        ["`long long` is not supported in OpenCL C; use `long` (64 bits)"]
    );
    let (out, errs) = with_errors("unsigned long long x;");
    assert_eq!(out, "(decl ulong (x))");
    assert_eq!(errs.len(), 1);
    let (out, errs) = with_errors("int float x;");
    assert_eq!(out, "(decl int (x))");
    assert_eq!(errs, ["cannot combine `float` with previous `int`"]);
    let (_, errs) = with_errors("unsigned float x;");
    assert_eq!(errs, ["cannot combine `float` with previous `unsigned`"]);
    let (_, errs) = with_errors("float unsigned x;");
    assert_eq!(errs, ["cannot combine `unsigned` with previous `float`"]);
    let (_, errs) = with_errors("unsigned unsigned x;");
    assert_eq!(errs, ["duplicate `unsigned`"]);
    let (out, errs) = with_errors("long double x;");
    assert_eq!(out, "(decl double (x))");
    assert_eq!(
        errs,
        ["`long double` is not supported in OpenCL C; use `double`"]
    );
    let (_, errs) = with_errors("short long x;");
    assert_eq!(errs, ["cannot combine `long` with previous `short`"]);
    let (out, errs) = with_errors("const x = 1;");
    assert_eq!(out, "(decl const <error> (x = (int 1)))");
    assert_eq!(errs, ["missing type specifier"]);
    let (_, errs) = with_errors("global local int x;");
    assert_eq!(
        errs,
        ["conflicting address spaces `__global` and `__local`"]
    );
    let (tu, diags) = parse_src("int float x;");
    assert_eq!(diags[0].code, Code::InvalidDeclaration);
    assert!(matches!(tu.items[0].kind, ItemKind::Declaration(_)));
}

#[test]
fn pipes_are_a_builtin_type() {
    assert_eq!(
        ok("kernel void k(read_only pipe int p) {}"),
        "(function kernel void k (params (param pipe (p))) (block))"
    );
}

#[test]
fn decl_spec_spans() {
    let src = "static const unsigned long int x;";
    let (tu, _) = parse_src(src);
    let ItemKind::Declaration(d) = &tu.items[0].kind else {
        panic!()
    };
    assert_eq!(text(src, d.spec.span), "static const unsigned long int");
    assert_eq!(text(src, d.spec.base_span), "unsigned long int");
    assert_eq!(text(src, d.span), src);
    assert_eq!(text(src, d.declarators[0].span), "x");
}

#[test]
fn typedef_names_follow_c_scoping() {
    let src = "typedef float foo;
kernel void a() { foo * bar; }
kernel void b() { int foo; foo * bar; }
kernel void c() { foo * bar; }
kernel void d(int foo) { foo * bar; }
kernel void e() { { typedef int T; T * x; } T * y; }
kernel void f() { for (int foo = 0;;) foo * bar; foo * baz; }";
    let (tu, diags) = parse_src(src);
    assert!(diags.is_empty(), "{:?}", messages(&diags));
    let out = print_tu(&tu);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "(decl typedef float (foo))");
    assert!(
        lines[1].ends_with("(block (decl 'foo (bar ptr))))"),
        "{}",
        lines[1]
    );
    assert!(
        lines[2].ends_with("(block (decl int (foo)) (expr (binary * (ident foo) (ident bar)))))"),
        "{}",
        lines[2]
    );
    assert!(
        lines[3].ends_with("(block (decl 'foo (bar ptr))))"),
        "{}",
        lines[3]
    );
    assert!(
        lines[4].ends_with("(block (expr (binary * (ident foo) (ident bar)))))"),
        "{}",
        lines[4]
    );
    assert!(lines[5].ends_with("(block (block (decl typedef int (T)) (decl 'T (x ptr))) (expr (binary * (ident T) (ident y)))))"), "{}", lines[5]);
    assert!(
        lines[6].ends_with("(expr (binary * (ident foo) (ident bar)))) (decl 'foo (baz ptr))))"),
        "{}",
        lines[6]
    );
}

#[test]
fn typedef_name_as_expression_is_reported() {
    let (out, errs) = stmts_err("typedef int T; x = T;");
    assert_eq!(
        out,
        "(decl typedef int (T)) (expr (assign = (ident x) (error)))"
    );
    assert_eq!(errs, ["unexpected type name `T`: expected expression"]);
}

#[test]
fn structs_unions_enums() {
    assert_eq!(
        ok("struct S { int a; float b[3], *c; int d : 3; int : 2; };"),
        "(decl (struct S { (field int (a)) (field float (b [(int 3)])) (field float (c ptr)) (field int (d) : (int 3)) (field int (_) : (int 2)) }))"
    );
    assert_eq!(ok("struct S s;"), "(decl (struct S) (s))");
    assert_eq!(
        ok("typedef struct { float x, y; } P; void f() { P p; }"),
        "(decl typedef (struct _ { (field float (x)) (field float (y)) }) (P))\n(function void f (params) (block (decl 'P (p))))"
    );
    assert_eq!(
        ok("struct O { struct { int a; }; };"),
        "(decl (struct O { (field (struct _ { (field int (a)) }) (_)) }))"
    );
    assert_eq!(
        ok("union U { int i; float f; } u;"),
        "(decl (union U { (field int (i)) (field float (f)) }) (u))"
    );
    assert_eq!(
        ok("enum E { A, B = 3, C, };"),
        "(decl (enum E A (B (int 3)) C))"
    );
    // Enumerators are ordinary identifiers: they hide a typedef of that name.
    assert_eq!(
        ok("typedef int A; void f() { enum { A } e; x = A * 2; }"),
        "(decl typedef int (A))\n(function void f (params) (block (decl (enum _ A) (e)) (expr (assign = (ident x) (binary * (ident A) (int 2))))))"
    );
    assert_eq!(
        ok("kernel void k(global struct S *s) {}"),
        "(function kernel void k (params (param global (struct S) (s ptr))) (block))"
    );
}

#[test]
fn initializers() {
    assert_eq!(
        ok("struct S s = { 1, .x = 2, [2] = 3, { 4, 5 }, };"),
        "(decl (struct S) (s = {(int 1) .x=(int 2) [(int 2)]=(int 3) {(int 4) (int 5)}}))"
    );
    assert_eq!(
        ok("int a[2][2] = {{1, 2}, {3}};"),
        "(decl int (a [(int 2)] [(int 2)] = {{(int 1) (int 2)} {(int 3)}}))"
    );
    assert_eq!(
        ok("float4 v = (float4)(0);"),
        "(decl float4 (v = (cast (type float4) (paren (int 0 x)))))"
    );
    assert_eq!(ok("int e[1] = {};"), "(decl int (e [(int 1)] = {}))");
}

#[test]
fn kr_definitions_are_rejected() {
    let (out, errs) = with_errors("int f(a, b) int a; int b; { return a; }\nkernel void k() {}");
    assert_eq!(errs, ["old-style (K&R) parameter lists are not supported; declare each parameter with its type"]);
    assert_eq!(
        out,
        "(function int f (params (param <error> (a)) (param <error> (b))) (block (return (ident a))))\n(function kernel void k (params) (block))"
    );
}

// ---------------------------------------------------------------------------
// Statements.

#[test]
fn all_statements() {
    assert_eq!(
        stmts("if (a) x = 1; else y = 2;"),
        "(if (ident a) (expr (assign = (ident x) (int 1))) (expr (assign = (ident y) (int 2))))"
    );
    assert_eq!(
        stmts("if (a) if (b) x; else y;"),
        "(if (ident a) (if (ident b) (expr (ident x)) (expr (ident y))))"
    );
    assert_eq!(
        stmts("while (i < n) i++;"),
        "(while (binary < (ident i) (ident n)) (expr (post ++ (ident i))))"
    );
    assert_eq!(
        stmts("do { i--; } while (i);"),
        "(do (block (expr (post -- (ident i)))) (ident i))"
    );
    assert_eq!(
        stmts("for (int i = 0, j; i < n; i++) {}"),
        "(for (decl int (i = (int 0 x)) (j)) (binary < (ident i) (ident n)) (post ++ (ident i)) (block))"
    );
    assert_eq!(
        stmts("for (i = 0; ; ) ;"),
        "(for (expr (assign = (ident i) (int 0 x))) _ _ (empty))"
    );
    assert_eq!(stmts("for (;;) break;"), "(for _ _ _ (break))");
    assert_eq!(
        stmts("switch (x) { case 1: case 2: y(); break; default: continue; }"),
        "(switch (ident x) (block (case (int 1) (case (int 2) (expr (call (ident y))))) (break) (default (continue))))"
    );
    assert_eq!(stmts("return;"), "(return)");
    assert_eq!(
        stmts("return a + 1;"),
        "(return (binary + (ident a) (int 1)))"
    );
    assert_eq!(
        stmts("goto out; out: x = 1;"),
        "(goto out) (label out (expr (assign = (ident x) (int 1))))"
    );
    assert_eq!(stmts(";"), "(empty)");
    assert_eq!(
        stmts("{ int a; { a; } }"),
        "(block (decl int (a)) (block (expr (ident a))))"
    );
    assert_eq!(
        stmts("switch (x) { default: }"),
        "(switch (ident x) (block (default (empty))))"
    );
    assert_eq!(stmts("x: ;"), "(label x (empty))");
}

#[test]
fn statement_spans() {
    let src = "void f() { x = a + b * 2; if (c) return; int y = 1, z; }";
    let (tu, _) = parse_src(src);
    let b = body_of(&tu);
    assert_eq!(text(src, b.stmts[0].span), "x = a + b * 2;");
    let StmtKind::Expr(e) = &b.stmts[0].kind else {
        panic!()
    };
    assert_eq!(text(src, e.span), "x = a + b * 2");
    let ExprKind::Assign { rhs, .. } = &e.kind else {
        panic!()
    };
    assert_eq!(text(src, rhs.span), "a + b * 2");
    assert_eq!(text(src, b.stmts[1].span), "if (c) return;");
    assert_eq!(text(src, b.stmts[2].span), "int y = 1, z;");
    let StmtKind::Decl(d) = &b.stmts[2].kind else {
        panic!()
    };
    assert_eq!(text(src, d.declarators[0].span), "y = 1");
    assert_eq!(text(src, d.declarators[1].span), "z");
    assert_eq!(
        text(src, b.span),
        "{ x = a + b * 2; if (c) return; int y = 1, z; }"
    );
    assert_eq!(text(src, tu.items[0].span), src);
}

#[test]
fn node_ids_are_unique_and_counted() {
    let (tu, diags) = parse_src("kernel void k(global float *a, int n) { for (int i = 0; i < n; i++) a[i] = (float2)(1, 2).x; }");
    assert!(diags.is_empty());
    print_tu(&tu); // asserts uniqueness and the bound
    let mut p = Printer::default();
    for item in &tu.items {
        p.item(item);
    }
    // Every node was counted: ids are exactly 0..node_count.
    let mut ids = p.ids;
    ids.sort_unstable();
    assert_eq!(ids, (0..tu.node_count).collect::<Vec<_>>());
}

#[test]
fn asm_is_reported_and_skipped() {
    let src =
        "void f() { asm volatile(\"nop\" : : : \"memory\"); x = 1; }\n__asm__(\"x\");\nvoid g() {}";
    let (tu, diags) = parse_src(src);
    assert_eq!(diags.len(), 2, "{:?}", messages(&diags));
    assert!(diags.iter().all(|d| d.code == Code::UnsupportedAsm));
    assert_eq!(
        print_tu(&tu),
        "(function void f (params) (block (error) (expr (assign = (ident x) (int 1)))))\n(error)\n(function void g (params) (block))"
    );
}

#[test]
fn goto_and_labels_parse() {
    assert_eq!(
        stmts("again: if (x) goto again;"),
        "(label again (if (ident x) (goto again)))"
    );
}

// ---------------------------------------------------------------------------
// Error recovery.

#[test]
fn missing_semicolon_is_reported_after_the_previous_token() {
    let src = "void f() {\n  x = 1\n  y = 2;\n}";
    let (tu, diags) = parse_src(src);
    assert_eq!(
        messages(&diags),
        ["expected `;` after expression, found `y`"]
    );
    assert_eq!(diags[0].code, Code::Syntax);
    let at = src.find('1').unwrap() as u32 + 1;
    assert_eq!((diags[0].span.start, diags[0].span.end), (at, at));
    assert_eq!(
        print_tu(&tu),
        "(function void f (params) (block (expr (assign = (ident x) (int 1))) (expr (assign = (ident y) (int 2)))))"
    );
}

#[test]
fn missing_semicolon_variants() {
    let (out, errs) = stmts_err("return x");
    assert_eq!(out, "(return (ident x))");
    assert_eq!(errs, ["expected `;` after `return` statement, found `}`"]);
    let (out, errs) = stmts_err("int a = 1\nint b = 2;");
    assert_eq!(out, "(decl int (a = (int 1))) (decl int (b = (int 2)))");
    assert_eq!(errs, ["expected `;` after declaration, found `int`"]);
    let (out, errs) = stmts_err("break\nx = 1;");
    assert_eq!(out, "(break) (expr (assign = (ident x) (int 1)))");
    assert_eq!(errs, ["expected `;` after `break`, found `x`"]);
    // Something on the same line that cannot start a statement: skip to `;`.
    let (out, errs) = stmts_err("x = a b c; y = 1;");
    assert_eq!(
        out,
        "(expr (assign = (ident x) (ident a))) (expr (assign = (ident y) (int 1)))"
    );
    assert_eq!(errs, ["expected `;` after expression, found `b`"]);
    let (out, errs) = with_errors("int g = 1\nkernel void k() {}");
    assert_eq!(
        out,
        "(decl int (g = (int 1)))\n(function kernel void k (params) (block))"
    );
    assert_eq!(
        errs,
        ["expected `;` after top-level declarator, found `kernel`"]
    );
}

#[test]
fn half_typed_expression_then_more_statements() {
    let src = "kernel void k(global int *a) {\n  int x = a[0] +\n  return x;\n  a[1] = 2;\n}";
    let (out, errs) = with_errors(src);
    assert_eq!(errs, ["expected expression, found `return`"]);
    assert_eq!(
        out,
        "(function kernel void k (params (param global int (a ptr))) (block (decl int (x = (binary + (index (ident a) (int 0 x)) (error)))) (return (ident x)) (expr (assign = (index (ident a) (int 1)) (int 2)))))"
    );
}

#[test]
fn unexpected_token_recovers_at_statement_level() {
    let (out, errs) = stmts_err("x = ))))); y = 1;");
    assert_eq!(errs, ["expected expression, found `)`"]);
    assert_eq!(
        out,
        "(expr (assign = (ident x) (error))) (expr (assign = (ident y) (int 1)))"
    );
    let (out, errs) = stmts_err("x = (a + ; y = 1;");
    assert_eq!(errs, ["expected expression, found `;`"]);
    assert_eq!(out, "(expr (assign = (ident x) (paren (binary + (ident a) (error))))) (expr (assign = (ident y) (int 1)))");
    let (_, errs) = stmts_err("x = ;");
    assert_eq!(errs, ["expected expression, found `;`"]);
    let (out, errs) = stmts_err("x = 1 +");
    assert_eq!(errs, ["expected expression, found `}`"]);
    assert_eq!(
        out,
        "(expr (assign = (ident x) (binary + (int 1) (error))))"
    );
}

#[test]
fn unclosed_parenthesis_names_the_opening_one() {
    let src = "void f() { foo(a, b; y = 1; }";
    let (tu, diags) = parse_src(src);
    assert_eq!(messages(&diags), ["expected `)`, found `;`"]);
    assert_eq!(diags[0].related.len(), 1);
    assert_eq!(diags[0].related[0].message, "to match this `(`");
    assert_eq!(text(src, diags[0].related[0].span), "(");
    assert_eq!(
        print_tu(&tu),
        "(function void f (params) (block (expr (call (ident foo) (ident a) (ident b))) (expr (assign = (ident y) (int 1)))))"
    );
}

#[test]
fn missing_closing_brace_at_end_of_file() {
    let src = "kernel void k() {\n  if (x) {\n    y = 1;\n";
    let (tu, diags) = parse_src(src);
    assert_eq!(messages(&diags), ["expected `}`, found end of file"]);
    // Lexer tokens have no Eof token: the end is right after the last token.
    assert_eq!(diags[0].span.start as usize, src.trim_end().len());
    assert_eq!(diags[0].related[0].message, "to match this `{`");
    assert_eq!(
        diags[0].related[0].span.start as usize,
        src.find("{\n    y").unwrap()
    );
    assert_eq!(print_tu(&tu), "(function kernel void k (params) (block (if (ident x) (block (expr (assign = (ident y) (int 1)))))))");
}

#[test]
fn missing_brace_and_missing_semicolon_at_end_are_both_reported() {
    let (_, errs) = with_errors("void f() { x = 1");
    assert_eq!(
        errs,
        [
            "expected `;` after expression, found end of file",
            "expected `}`, found end of file"
        ]
    );
}

#[test]
fn unclosed_kernel_does_not_swallow_the_next_one() {
    let src = "kernel void a(global int *p) {\n  if (p[0]) {\n    p[1] = 2;\n  }\n\nkernel void b(global int *q) {\n  q[0] = 1;\n}\n";
    let (out, errs) = with_errors(src);
    assert_eq!(errs, ["expected `}`, found `kernel`"]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert!(lines[0].starts_with("(function kernel void a"), "{out}");
    assert_eq!(lines[1], "(function kernel void b (params (param global int (q ptr))) (block (expr (assign = (index (ident q) (int 0 x)) (int 1)))))");
}

#[test]
fn junk_at_top_level_is_one_error_item() {
    let src = "this is ) not [ C at all ;;; 12 + 3\n  more junk here\nkernel void good(global int *p) { p[0] = 1; }";
    let (tu, diags) = parse_src(src);
    assert_eq!(messages(&diags), ["expected a declaration, found `this`"]);
    let out = print_tu(&tu);
    assert_eq!(
        out,
        "(error)\n(function kernel void good (params (param global int (p ptr))) (block (expr (assign = (index (ident p) (int 0 x)) (int 1)))))"
    );
    // The error item covers all the junk.
    assert_eq!(
        text(src, tu.items[0].span),
        "this is ) not [ C at all ;;; 12 + 3\n  more junk here"
    );
}

#[test]
fn junk_with_braces_at_top_level() {
    let (out, errs) = with_errors("x = foo(1) {\n int y;\n}\nkernel void k() {}\n}\nvoid g() {}");
    assert_eq!(
        errs,
        [
            "expected a declaration, found `x`",
            "extraneous closing brace `}`"
        ]
    );
    assert_eq!(out, "(error)\n(function kernel void k (params) (block))\n(error)\n(function void g (params) (block))");
}

#[test]
fn error_in_one_kernel_does_not_affect_the_next() {
    let src = "kernel void a(global int *p) { p[0] = ; p[1] = 1; }\nkernel void b(global int *q) { q[0] = 2; }";
    let (out, errs) = with_errors(src);
    assert_eq!(errs, ["expected expression, found `;`"]);
    assert_eq!(
        out,
        "(function kernel void a (params (param global int (p ptr))) (block (expr (assign = (index (ident p) (int 0 x)) (error))) (expr (assign = (index (ident p) (int 1)) (int 1)))))\n(function kernel void b (params (param global int (q ptr))) (block (expr (assign = (index (ident q) (int 0 x)) (int 2)))))"
    );
}

#[test]
fn broken_headers_still_parse_the_body() {
    let (out, errs) = stmts_err("if (x { y = 1; }");
    assert_eq!(errs, ["expected `)`, found `{`"]);
    assert_eq!(
        out,
        "(if (ident x) (block (expr (assign = (ident y) (int 1)))))"
    );
    let (out, errs) = stmts_err("if x > 0 { y = 1; }");
    assert_eq!(errs, ["expected `(` after `if`, found `x`"]);
    assert_eq!(
        out,
        "(if (binary > (ident x) (int 0 x)) (block (expr (assign = (ident y) (int 1)))))"
    );
    let (out, errs) = stmts_err("while (a b) { c; }");
    assert_eq!(errs, ["expected `)`, found `b`"]);
    assert_eq!(out, "(while (ident a) (block (expr (ident c))))");
    let (out, errs) = stmts_err("for (i = 0; i < n i++) x;");
    assert_eq!(
        errs,
        ["expected `;` in `for` statement specifier, found `i`"]
    );
    assert_eq!(out, "(for (expr (assign = (ident i) (int 0 x))) (binary < (ident i) (ident n)) (post ++ (ident i)) (expr (ident x)))");
    let (out, errs) = stmts_err("if () x;");
    assert_eq!(errs, ["expected expression, found `)`"]);
    assert_eq!(out, "(if (error) (expr (ident x)))");
    let (out, errs) = with_errors("kernel void k(global float *a {\n a[0] = 1;\n}");
    assert_eq!(errs, ["expected `)`, found `{`"]);
    assert_eq!(out, "(function kernel void k (params (param global float (a ptr))) (block (expr (assign = (index (ident a) (int 0 x)) (int 1)))))");
}

#[test]
fn stray_else_and_missing_statement() {
    let (out, errs) = stmts_err("else x = 1; y;");
    assert_eq!(errs, ["`else` without a previous `if`"]);
    assert_eq!(out, "(expr (assign = (ident x) (int 1))) (expr (ident y))");
    let (out, errs) = stmts_err("if (x)");
    assert_eq!(errs, ["expected statement, found `}`"]);
    assert_eq!(out, "(if (ident x) (error))");
    let (_, errs) = stmts_err("case 1 x; default x;");
    assert_eq!(
        errs,
        [
            "expected `:` after `case` value, found `x`",
            "expected `:` after `default`, found `x`"
        ]
    );
}

#[test]
fn unknown_type_names() {
    let (out, errs) = with_errors("kernal void f(global int *p) { p[0] = 1; }");
    assert_eq!(errs, ["unknown type name `kernal`"]);
    assert_eq!(out, "(function void f (params (param global int (p ptr))) (block (expr (assign = (index (ident p) (int 0 x)) (int 1)))))");
    let (out, errs) = stmts_err("foo x = 1; y = 2;");
    assert_eq!(errs, ["unknown type name `foo`"]);
    assert_eq!(
        out,
        "(decl <error> (x = (int 1))) (expr (assign = (ident y) (int 2)))"
    );
    let (out, errs) = with_errors("void f(flaot *p, int n);");
    assert_eq!(errs, ["unknown type name `flaot`"]);
    assert_eq!(
        out,
        "(function void f (params (param <error> (p ptr)) (param int (n))) ;)"
    );
    let (tu, diags) = parse_src("foo x;");
    assert_eq!(diags[0].code, Code::Undeclared);
    assert!(matches!(tu.items[0].kind, ItemKind::Declaration(_)));
}

#[test]
fn half_typed_member_access() {
    let (out, errs) = stmts_err("x = v.; y = 1;");
    assert_eq!(errs, ["expected field name after `.`, found `;`"]);
    assert_eq!(
        out,
        "(expr (assign = (ident x) (error))) (expr (assign = (ident y) (int 1)))"
    );
}

#[test]
fn nested_function_definition_is_rejected() {
    let (out, errs) = stmts_err("int g(int a) { return a; } x = 1;");
    assert_eq!(errs, ["function definition is not allowed here"]);
    assert_eq!(out, "(error) (expr (assign = (ident x) (int 1)))");
}

#[test]
fn broken_struct_and_initializer() {
    let (out, errs) = with_errors("struct S { int a\n float b; 42; };\nint z;");
    assert_eq!(
        errs,
        [
            "expected `;` at end of field declaration, found `float`",
            "expected field declaration, found `42`"
        ]
    );
    assert_eq!(
        out,
        "(decl (struct S { (field int (a)) (field float (b)) }))\n(decl int (z))"
    );
    let (out, errs) = stmts_err("int a[2] = {1, 2\nx = 1;");
    assert_eq!(errs, ["expected `}`, found `x`"]);
    assert_eq!(
        out,
        "(decl int (a [(int 2)] = {(int 1) (int 2)})) (expr (assign = (ident x) (int 1)))"
    );
    let (_, errs) = stmts_err("struct P p = { .x.y = 1 };");
    assert_eq!(
        errs,
        ["nested designators (`.a.b =`, `[i][j] =`) are not supported; use nested braces"]
    );
}

#[test]
fn unknown_characters_are_skipped_with_an_error() {
    let (out, errs) = stmts_err("x = 1 @ + 2;");
    assert_eq!(errs, ["unexpected character `@`"]);
    assert_eq!(
        out,
        "(expr (assign = (ident x) (binary + (int 1) (int 2))))"
    );
}

#[test]
fn keywords_are_not_identifiers() {
    let (_, errs) = stmts_err("int if = 3;");
    assert_eq!(errs, ["expected identifier, found `if`"]);
    let (out, errs) = stmts_err("x = int;");
    assert_eq!(errs, ["expected expression, found `int`"]);
    assert_eq!(out, "(expr (assign = (ident x) (error)))");
}

#[test]
fn compound_literals_are_postfix_operands() {
    // A literal takes postfix operators (`.f`, `[i]`) and is an operand of
    // the operators around it; a vector literal `(float2)(a, b)` is not one.
    let (out, errs) = stmts_err(
        "x = (struct S){ .lo = 1, .hi = a + 2 }.hi * 3; y = ((float[]){ 0.25f, 0.5f })[i]; z = (float2)(a, b);",
    );
    assert!(errs.is_empty(), "{errs:?}");
    assert_eq!(
        out,
        "(expr (assign = (ident x) (binary * (. (compound (type (struct S)) {.lo=(int 1) .hi=(binary + (ident a) (int 2))}) hi) (int 3)))) \
         (expr (assign = (ident y) (index (paren (compound (type float []) {(float 0.25 f) (float 0.5 f)})) (ident i)))) \
         (expr (assign = (ident z) (vec (type float2) (ident a) (ident b))))"
    );
    let (_, errs) = stmts_err("x = (struct S){ 1, 2 ;");
    assert!(!errs.is_empty());
}

#[test]
fn token_slices_without_eof_and_with_trailing_tokens() {
    let mut d = Vec::new();
    let tokens = lex(FileId(0), "int x; int y;", &mut d);
    // No Eof: as if one followed.
    let tu = parse(&tokens[..3], &mut d);
    assert_eq!(print_tu(&tu), "(decl int (x))");
    // Tokens after an Eof are ignored.
    let mut with_eof = tokens[..3].to_vec();
    let mut eof = tokens[2].clone();
    eof.kind = TokenKind::Eof;
    with_eof.push(eof);
    with_eof.extend_from_slice(&tokens[3..]);
    let tu = parse(&with_eof, &mut d);
    assert_eq!(print_tu(&tu), "(decl int (x))");
    assert!(d.is_empty());
    // Nothing at all.
    let tu = parse(&[], &mut d);
    assert_eq!(tu.items.len(), 0);
    assert_eq!(tu.node_count, 0);
    let (_, errs) = with_errors("void f() { x = 1; ");
    assert_eq!(errs, ["expected `}`, found end of file"]);
}

// ---------------------------------------------------------------------------
// Depth limits: each of these must report one TooDeep and return normally on
// a default test thread, and the tree must drop without overflowing.

/// Height of an expression tree (tests only; the trees are bounded).
fn expr_height(e: &Expr) -> usize {
    let kids: Vec<&Expr> = match &e.kind {
        ExprKind::Paren(x) | ExprKind::SizeofExpr(x) => vec![x],
        ExprKind::Unary { operand, .. } => vec![operand],
        ExprKind::Binary { lhs, rhs, .. }
        | ExprKind::Assign { lhs, rhs, .. }
        | ExprKind::Comma { lhs, rhs } => vec![lhs, rhs],
        ExprKind::Conditional { cond, then, els } => vec![cond, then, els],
        ExprKind::Call { callee, args } => std::iter::once(&**callee).chain(args.iter()).collect(),
        ExprKind::Index { base, index } => vec![base, index],
        ExprKind::Member { base, .. } => vec![base],
        ExprKind::Cast { expr, .. } => vec![expr],
        ExprKind::VectorLiteral { elems, .. } => elems.iter().collect(),
        ExprKind::CompoundLiteral { init, .. } => match &**init {
            Initializer::Expr(e) => vec![e],
            Initializer::List { .. } => vec![],
        },
        _ => vec![],
    };
    1 + kids.into_iter().map(expr_height).max().unwrap_or(0)
}

fn stmt_height(s: &Stmt) -> usize {
    let kids: Vec<usize> = match &s.kind {
        StmtKind::Block(b) => b.stmts.iter().map(stmt_height).collect(),
        StmtKind::Expr(e) | StmtKind::Return(Some(e)) => vec![expr_height(e)],
        StmtKind::If { cond, then, els } => {
            let mut v = vec![expr_height(cond), stmt_height(then)];
            if let Some(e) = els {
                v.push(stmt_height(e));
            }
            v
        }
        StmtKind::While { cond, body } => vec![expr_height(cond), stmt_height(body)],
        StmtKind::Decl(d) => d
            .declarators
            .iter()
            .filter_map(|i| match &i.init {
                Some(Initializer::Expr(e)) => Some(expr_height(e)),
                _ => None,
            })
            .collect(),
        _ => vec![],
    };
    1 + kids.into_iter().max().unwrap_or(0)
}

fn check_too_deep(src: &str) -> TranslationUnit {
    let (tu, diags) = parse_src(src);
    let deep: Vec<&Diagnostic> = diags.iter().filter(|d| d.code == Code::TooDeep).collect();
    assert_eq!(deep.len(), 1, "{:?}", messages(&diags));
    assert_eq!(deep[0].message, "nesting too deep: more than 256 levels");
    let height: usize = tu
        .items
        .iter()
        .map(|i| match &i.kind {
            ItemKind::Function(Function { body: Some(b), .. }) => {
                b.stmts.iter().map(stmt_height).max().unwrap_or(0)
            }
            _ => 0,
        })
        .max()
        .unwrap_or(0);
    assert!(height <= 2 * MAX_DEPTH as usize + 8, "tree height {height}");
    tu
}

#[test]
fn deep_parentheses() {
    let n = 10_000;
    let src = format!(
        "void f() {{ x = {}a{}; y = 1; }}",
        "(".repeat(n),
        ")".repeat(n)
    );
    let tu = check_too_deep(&src);
    // The statements around the deep one are intact.
    let out = print_tu(&tu);
    assert!(
        out.ends_with("(expr (assign = (ident y) (int 1)))))"),
        "{}",
        &out[out.len() - 80..]
    );
    drop(tu);
}

#[test]
fn deep_blocks() {
    let n = 10_000;
    let src = format!(
        "void f() {{ {}x;{} }}\nvoid g() {{}}",
        "{".repeat(n),
        "}".repeat(n)
    );
    let tu = check_too_deep(&src);
    assert_eq!(tu.items.len(), 2);
}

#[test]
fn deep_ifs() {
    let src = format!("void f() {{ {}x; y = 1; }}", "if (a) ".repeat(10_000));
    let tu = check_too_deep(&src);
    let body = body_of(&tu);
    assert_eq!(body.stmts.len(), 2);
}

#[test]
fn long_binary_chain() {
    let src = format!("void f() {{ x = a{}; y = 1; }}", "+a".repeat(100_000));
    let tu = check_too_deep(&src);
    assert_eq!(body_of(&tu).stmts.len(), 2);
}

#[test]
fn deep_unary_operators() {
    let src = format!("void f() {{ x = {}a; y = 1; }}", "-".repeat(10_000));
    let tu = check_too_deep(&src);
    assert_eq!(body_of(&tu).stmts.len(), 2);
    let src = format!("void f() {{ x = {}a; }}", "- ".repeat(10_000));
    check_too_deep(&src);
}

#[test]
fn deep_brackets() {
    let n = 10_000;
    let src = format!(
        "void f() {{ x = {}0{}; y = 1; }}",
        "a[".repeat(n),
        "]".repeat(n)
    );
    let tu = check_too_deep(&src);
    assert_eq!(body_of(&tu).stmts.len(), 2);
    let src = format!("void f() {{ x = {}; }}\nvoid g() {{}}", "[".repeat(n));
    let (tu, _) = parse_src(&src);
    assert_eq!(tu.items.len(), 2);
    let src = format!("int x{};", "[1]".repeat(n));
    check_too_deep(&src);
}

#[test]
fn other_deep_constructs() {
    let n = 10_000;
    // Right-associative chains recurse.
    check_too_deep(&format!("void f() {{ x{}; }}", " = x".repeat(n)));
    check_too_deep(&format!(
        "void f() {{ x = c{} : d; }}",
        " ? c : c".repeat(n)
    ));
    // Postfix, comma and cast chains.
    check_too_deep(&format!("void f() {{ x = a{}; }}", "[0]".repeat(100_000)));
    check_too_deep(&format!("void f() {{ x = f{}; }}", "()".repeat(100_000)));
    check_too_deep(&format!("void f() {{ x = v{}; }}", ".x".repeat(100_000)));
    check_too_deep(&format!("void f() {{ a{}; }}", ", a".repeat(100_000)));
    check_too_deep(&format!("void f() {{ x = {}a; }}", "(int)".repeat(n)));
    check_too_deep(&format!("void f() {{ x = {}a; }}", "sizeof ".repeat(n)));
    check_too_deep(&format!("void f() {{ x = {}a; }}", "!~".repeat(n)));
    check_too_deep(&format!(
        "void f() {{ x = {}a{}; }}",
        "f(".repeat(n),
        ")".repeat(n)
    ));
    // Declarations.
    check_too_deep(&format!("int {}x{};", "(".repeat(n), ")".repeat(n)));
    check_too_deep(&format!("int {}x;", "*".repeat(n)));
    check_too_deep(&format!("int x = {}1{};", "{".repeat(n), "}".repeat(n)));
    check_too_deep(&format!(
        "{}int x;{}",
        "struct { ".repeat(n),
        " } y;".repeat(n)
    ));
    check_too_deep(&format!("void f() {{ {} }}", "do ".repeat(n)));
    check_too_deep(&format!("void f() {{ {}x; }}", "l: ".repeat(n)));
    check_too_deep(&format!("void f() {{ {}x; }}", "case 1: ".repeat(n)));
}

#[test]
fn deep_nesting_below_the_limit_is_fine() {
    // 100 levels of parentheses and blocks parse without any error.
    let src = format!(
        "void f() {{ {} x = {}a{}; {} }}",
        "{".repeat(100),
        "(".repeat(100),
        ")".repeat(100),
        "}".repeat(100)
    );
    let (_, diags) = parse_src(&src);
    assert!(diags.is_empty(), "{:?}", messages(&diags));
}

#[test]
fn deep_nesting_just_below_the_limit_fits_the_stack() {
    // The worst cases that are still accepted, with every level used, fit
    // in half of the default 2 MiB thread stack.
    let worker = std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(deep_but_accepted_inputs)
        .expect("thread");
    worker.join().expect("no stack overflow");
}

fn deep_but_accepted_inputs() {
    for src in [
        format!("void f() {{ {}x;{} }}", "{".repeat(250), "}".repeat(250)),
        format!("void f() {{ {}x; }}", "if (a) ".repeat(250)),
        format!(
            "void f() {{ x = {}a{}; }}",
            "(".repeat(250),
            ")".repeat(250)
        ),
        format!(
            "void f() {{ x = {}a{}; }}",
            "f(".repeat(120),
            ")".repeat(120)
        ),
        format!("void f() {{ x = {}a; }}", "(int)".repeat(250)),
        format!("int x = {}1{};", "{".repeat(250), "}".repeat(250)),
        format!("int {}x{};", "(".repeat(250), ")".repeat(250)),
        format!("{}int x;{}", "struct { ".repeat(250), " } y;".repeat(250)),
        format!(
            "void f() {{ {}x = {}a{};{} }}",
            "{".repeat(120),
            "(".repeat(120),
            ")".repeat(120),
            "}".repeat(120)
        ),
        format!("void f() {{ x = {}a; }}", "-".repeat(250)),
    ] {
        let (tu, diags) = parse_src(&src);
        assert!(
            diags.iter().all(|d| d.code != Code::TooDeep),
            "{:?}",
            messages(&diags)
        );
        drop(tu);
    }
}

// ---------------------------------------------------------------------------
// Robustness: every prefix and every one-token deletion of a realistic
// kernel parses without panicking and with consistent ids and spans.

const SAMPLE: &str = r#"
typedef struct { float x, y; } P;
__constant float k[3] = { 1.0f, 2.0f, 3.0f };
inline float sq(float v) { return v * v; }
__kernel __attribute__((reqd_work_group_size(64, 1, 1)))
void saxpy(__global const float * restrict x, __global float *y, float a, int n) {
    size_t i = get_global_id(0);
    if (i >= n) return;
    float4 v = (float4)(x[i], 1.0f, 2.0f, 3.0f);
    for (int j = 0; j < 3; ++j) {
        switch (j) { case 0: v.x += k[j]; break; default: v.yz *= (float2)(a, a); }
    }
    P p = { .x = 1, .y = sq(a) };
    y[i] = a * x[i] + y[i] + v.w + p.x + (n > 0 ? 1 : 0) + sizeof(P);
}
"#;

#[test]
fn every_prefix_and_deletion_parses() {
    let mut d = Vec::new();
    let tokens = lex(FileId(0), SAMPLE, &mut d);
    assert!(d.is_empty());
    let (tu, diags) = parse_src(SAMPLE);
    assert!(diags.is_empty(), "{:?}", messages(&diags));
    print_tu(&tu);
    for cut in 0..tokens.len() {
        let mut diags = Vec::new();
        let tu = parse(&tokens[..cut], &mut diags);
        print_tu(&tu);
        let mut deleted = tokens.clone();
        deleted.remove(cut);
        let mut diags = Vec::new();
        let tu = parse(&deleted, &mut diags);
        print_tu(&tu);
        // One deleted token: a handful of diagnostics at most, never a flood.
        assert!(
            diags.len() <= 3,
            "deleting token {cut} ({}) gave {:?}",
            tokens[cut].text,
            messages(&diags)
        );
    }
}

#[test]
fn statement_attributes_are_accepted() {
    assert_eq!(
        stmts("__attribute__((opencl_unroll_hint(2))) for (;;) break; __attribute__((aligned(4))) int x;"),
        "(for _ _ _ (break)) (decl (attr aligned(..)) int (x))"
    );
}

#[test]
fn kernel_line_ends_a_broken_parameter_list() {
    let (out, errs) =
        with_errors("kernel void a(global int *p,\nkernel void b(global int *q) { q[0] = 1; }");
    assert_eq!(errs, ["expected `)`, found `kernel`"]);
    assert_eq!(
        out,
        "(function kernel void a (params (param global int (p ptr))) ;)\n(function kernel void b (params (param global int (q ptr))) (block (expr (assign = (index (ident q) (int 0 x)) (int 1)))))"
    );
}

#[test]
fn missing_body_brace_is_recovered() {
    let (out, errs) = with_errors(
        "void f(int a)\n  int b = a;\n  b++;\n}\nvoid g(int x);\nvoid h(int y)\nint z;",
    );
    assert_eq!(
        errs,
        [
            "expected `;` or `{` after function declarator, found `int`",
            "expected `;` or `{` after function declarator, found `int`"
        ]
    );
    assert_eq!(
        out,
        "(function void f (params (param int (a))) (block (decl int (b = (ident a))) (expr (post ++ (ident b)))))\n(function void g (params (param int (x))) ;)\n(function void h (params (param int (y))) ;)\n(decl int (z))"
    );
}

#[test]
fn kr_declarations_do_not_leak_into_file_scope() {
    // `T` stays a typedef name after the old-style declaration `int T;`.
    let (out, errs) =
        with_errors("typedef float T;\nint f(T) int T; { return 0; }\nvoid g() { T * p; }");
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert!(
        out.ends_with("(function void g (params) (block (decl 'T (p ptr))))"),
        "{out}"
    );
}

/// A small deterministic generator for the mutation tests.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

const VOCABULARY: &str = "( ) [ ] { } ; , . -> = == + - * / & && ? : ++ -- < > ! ~ ^ | % << >> += ... \
    if else for while do switch case default return break continue goto int float float4 uint unsigned long \
    const __global __local struct union enum typedef __kernel kernel void sizeof vec_step __attribute__ asm \
    x y z T 0 1 42 1.5f 0x1F 12abc 'a' \"s\" @ #";

#[test]
fn mutated_kernels_never_break_the_parser() {
    let mut d = Vec::new();
    let base = lex(FileId(0), SAMPLE, &mut d);
    let vocab = lex(FileId(1), VOCABULARY, &mut d);
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for _ in 0..3000 {
        let mut toks = base.clone();
        let mut reordered = false;
        for _ in 0..1 + rng.below(4) {
            let i = rng.below(toks.len());
            match rng.below(5) {
                0 if !toks.is_empty() => {
                    toks.remove(i);
                }
                1 => {
                    let mut t = vocab[rng.below(vocab.len())].clone();
                    t.line_start = rng.below(4) == 0;
                    // Keep spans in the file being parsed.
                    t.span = toks.get(i).map_or(t.span, |x| Span {
                        end: x.span.start,
                        ..x.span
                    });
                    t.span.file = FileId(0);
                    toks.insert(i, t);
                }
                2 if i + 1 < toks.len() => {
                    toks.swap(i, i + 1);
                    reordered = true;
                }
                3 => toks.truncate(i),
                _ => {
                    if let Some(t) = toks.get(i).cloned() {
                        toks.insert(i, t);
                    }
                }
            }
        }
        let mut diags = Vec::new();
        let tu = parse(&toks, &mut diags);
        if reordered {
            // Spans of swapped tokens are out of order; check ids only.
            check_ids(&tu);
        } else {
            print_tu(&tu);
        }
    }
}

fn check_ids(tu: &TranslationUnit) {
    let mut p = Printer::default();
    for item in &tu.items {
        p.item(item);
    }
    let mut ids = p.ids;
    ids.sort_unstable();
    let n = ids.len();
    ids.dedup();
    assert_eq!(ids.len(), n, "node ids are not unique");
    assert!(ids.iter().all(|&i| i < tu.node_count));
}

#[test]
fn random_token_soup_never_breaks_the_parser() {
    let mut d = Vec::new();
    let vocab = lex(FileId(0), VOCABULARY, &mut d);
    let mut rng = Rng(42);
    for _ in 0..500 {
        let len = rng.below(300);
        let toks: Vec<Token> = (0..len)
            .map(|_| {
                let mut t = vocab[rng.below(vocab.len())].clone();
                t.line_start = rng.below(5) == 0;
                t
            })
            .collect();
        let mut diags = Vec::new();
        let tu = parse(&toks, &mut diags);
        // Spans of reordered tokens are not ordered, so only ids are checked.
        check_ids(&tu);
    }
}
