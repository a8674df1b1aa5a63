//! Reader for the text form of the IR that [`super::print`] writes, so that
//! `print(parse(text))` is `text` for every printed function: file tests
//! start from IR instead of OpenCL C, and a pass can be run on exactly the
//! input a test gives it.
//!
//! The format is line-oriented (one header line, declaration comments, block
//! labels, one instruction per line) with a dozen kinds of token, so the
//! reader is a small recursive-descent parser over one line at a time: it
//! keeps line and column for every error without a lexer generator or a
//! combinator library, and follows the printer construct by construct.
//!
//! What the text does not hold is made up: source spans are the byte ranges
//! of the lines in the text (file 0), `__constant` variables have zero bytes
//! of the printed size, and the source variables are empty.
//! Annotations (` : <fact>` after a value, `; <fact>` after a block label)
//! are kept as text ([`Annotations`]); [`crate::vectorize::parse`] reads the
//! shapes and masks of vector IR from them. A line that starts with `;` and
//! is not a declaration is a comment.

use std::collections::{BTreeMap, HashMap};
use std::fmt;

use lanes_frontend::ast::{AddressSpace, NodeId};
use lanes_frontend::source::{FileId, Span};

use super::print::Annotate;
use super::*;

mod cursor;
mod names;
#[cfg(test)]
mod tests;

use cursor::{split_lines, Cursor, SrcLine};
use names::*;

/// A malformed input: where (1-based line and column, in characters) and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    pub line: u32,
    pub column: u32,
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.column, self.message)
    }
}

impl std::error::Error for ParseError {}

/// A place in the text (1-based).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pos {
    pub line: u32,
    pub column: u32,
}

impl Pos {
    pub fn error(self, message: impl Into<String>) -> ParseError {
        ParseError {
            line: self.line,
            column: self.column,
            message: message.into(),
        }
    }
}

/// The annotation texts of a function, with where they are.
#[derive(Clone, Debug, Default)]
pub struct Annotations {
    pub values: HashMap<ValueId, (String, Pos)>,
    pub blocks: HashMap<BlockId, (String, Pos)>,
}

impl Annotate for Annotations {
    fn value(&self, _f: &Function, v: ValueId) -> Option<String> {
        self.values.get(&v).map(|(s, _)| s.clone())
    }
    fn block(&self, _f: &Function, b: BlockId) -> Option<String> {
        self.blocks.get(&b).map(|(s, _)| s.clone())
    }
}

/// One function read from the text.
#[derive(Clone, Debug)]
pub struct Parsed {
    pub func: Function,
    pub annotations: Annotations,
    /// The comment lines right before `kernel` (`; vector IR of ...`),
    /// without the `;`, with where their text starts.
    pub preamble: Vec<(String, Pos)>,
    /// Where `kernel` is.
    pub pos: Pos,
    /// Where each instruction starts, by [`InstId`].
    pub inst_pos: Vec<Pos>,
}

/// Reads every function of `text` (as `lanes build --emit vir` prints
/// several kernels one after the other).
pub fn parse_functions(text: &str) -> Result<Vec<Parsed>, ParseError> {
    let lines = split_lines(text);
    let mut out = Vec::new();
    let mut preamble = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let l = &lines[i];
        let t = l.text.trim();
        if t.is_empty() {
            preamble.clear();
        } else if let Some(c) = t.strip_prefix(';') {
            // The position of the comment's text, after `;` and blanks.
            let start = l.text.len() - c.trim_start().len();
            let col = l.column_of(start) + 1;
            preamble.push((
                c.trim().to_string(),
                Pos {
                    line: l.no,
                    column: col,
                },
            ));
        } else {
            let (parsed, next) = FunctionReader::new(&lines, i).read()?;
            out.push(Parsed {
                preamble: std::mem::take(&mut preamble),
                ..parsed
            });
            i = next;
            continue;
        }
        i += 1;
    }
    Ok(out)
}

/// Reads a text that holds exactly one function.
pub fn parse_function(text: &str) -> Result<Parsed, ParseError> {
    let mut all = parse_functions(text)?;
    match all.len() {
        1 => Ok(all.remove(0)),
        0 => Err(ParseError {
            line: 1,
            column: 1,
            message: "expected `kernel @name(...) {`, found no function".into(),
        }),
        _ => Err(all[1]
            .pos
            .error("expected one function, found a second one")),
    }
}

/// Constants are numbered from here while reading, and renumbered after the
/// last `%N` once the function is complete (the printed ids are kept).
const CONST_BASE: u32 = 1 << 31;

/// A block reference to check once every block is known.
struct BlockRef {
    id: BlockId,
    label: String,
    pos: Pos,
}

struct FunctionReader<'a> {
    lines: &'a [SrcLine<'a>],
    at: usize,
    f: Function,
    ann: Annotations,
    /// Constants, globals and locals: numbered after the printed ids once
    /// the function is complete.
    extra: Vec<Value>,
    /// The value of each declaration used (`@g`, `@local.x`).
    decl_values: HashMap<String, ValueId>,
    /// Values defined so far: the printed id and where.
    defined: BTreeMap<u32, Pos>,
    uses: Vec<(u32, Pos)>,
    /// Operands whose type the text states (`cmp i32 %5`).
    typed_uses: Vec<(u32, Ty, Pos)>,
    /// `ptradd` results, whose type is their base's.
    ptradds: Vec<(u32, ValueId)>,
    block_refs: Vec<BlockRef>,
    /// Printed id -> value type, for values defined by the text.
    types: HashMap<u32, Ty>,
    current: Option<BlockId>,
    entry: Option<Pos>,
    inst_pos: Vec<Pos>,
    /// The instruction being read is `add nsw` (or `sub`, `mul`): its
    /// result goes into [`Function::nsw`].
    nsw: bool,
}

impl<'a> FunctionReader<'a> {
    fn new(lines: &'a [SrcLine<'a>], at: usize) -> FunctionReader<'a> {
        FunctionReader {
            lines,
            at,
            f: Function::new("", Span::new(FileId(0), 0, 0)),
            ann: Annotations::default(),
            extra: Vec::new(),
            decl_values: HashMap::new(),
            defined: BTreeMap::new(),
            uses: Vec::new(),
            typed_uses: Vec::new(),
            ptradds: Vec::new(),
            block_refs: Vec::new(),
            types: HashMap::new(),
            current: None,
            entry: None,
            nsw: false,
            inst_pos: Vec::new(),
        }
    }

    fn read(mut self) -> Result<(Parsed, usize), ParseError> {
        let first = &self.lines[self.at];
        let mut c = Cursor::new(first);
        let kernel_pos = c.here();
        self.header(&mut c)?;
        let mut i = self.at + 1;
        loop {
            let Some(line) = self.lines.get(i) else {
                let last = self.lines.last().map_or(first.no, |l| l.no);
                return Err(Pos {
                    line: last,
                    column: 1,
                }
                .error("expected `}` at the end of the function, found the end of the text"));
            };
            i += 1;
            let t = line.text.trim();
            if t.is_empty() {
                continue;
            }
            let mut c = Cursor::new(line);
            if t == "}" {
                break;
            }
            if t.starts_with(';') {
                self.declaration(&mut c)?;
                continue;
            }
            let w = c.peek_word();
            let is_block = w.strip_prefix("bb").is_some_and(|r| {
                r.split('.')
                    .next()
                    .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
            }) && {
                let mut look = Cursor::new(line);
                look.pos = c.pos + w.len();
                look.peek_punct(":")
            };
            if is_block {
                self.block_header(&mut c)?;
            } else {
                self.instruction(&mut c)?;
            }
        }
        let end = self.lines[i - 1].offset + self.lines[i - 1].text.len();
        self.f.span = Span::new(FileId(0), first.offset as u32, end as u32);
        self.finish(kernel_pos)?;
        Ok((
            Parsed {
                func: self.f,
                annotations: self.ann,
                preamble: Vec::new(),
                pos: kernel_pos,
                inst_pos: self.inst_pos,
            },
            i,
        ))
    }

    fn ty(&self, c: &mut Cursor) -> Result<Ty, ParseError> {
        let (w, at) = c.word("a type")?;
        Ok(match w {
            "i1" => Ty::I1,
            "i8" => Ty::I8,
            "i16" => Ty::I16,
            "i32" => Ty::I32,
            "i64" => Ty::I64,
            "f32" => Ty::F32,
            "f64" => Ty::F64,
            "image" => Ty::Image,
            "void" => Ty::Void,
            "ptr" => {
                c.expect("(")?;
                let (s, sat) = c.word("an address space")?;
                let space =
                    space_of(s).ok_or_else(|| sat.error(format!("unknown address space `{s}`")))?;
                c.expect(")")?;
                Ty::Ptr(space)
            }
            _ => return Err(at.error(format!("expected a type, found `{w}`"))),
        })
    }

    /// `kernel @name(%0: ty name : ann, ...) {`
    fn header(&mut self, c: &mut Cursor) -> Result<(), ParseError> {
        if !c.eat_word("kernel") {
            let f = c.found();
            return Err(c.error(format!("expected `kernel @name(...) {{`, found {f}")));
        }
        c.expect("@")?;
        let (name, _) = c.word("the kernel's name")?;
        self.f.name = name.into();
        c.expect("(")?;
        let mut source_index = 0u32;
        let mut last_vector: Option<String> = None;
        if !c.eat(")") {
            loop {
                let value = if c.eat("?") {
                    None
                } else {
                    let (n, at) = c.value_id()?;
                    Some((n, at))
                };
                c.expect(":")?;
                let ty = self.ty(c)?;
                let (full, _) = c.word("the parameter's name")?;
                let (name, component) = match full.rsplit_once(".s") {
                    Some((n, comp))
                        if !comp.is_empty() && comp.bytes().all(|b| b.is_ascii_hexdigit()) =>
                    {
                        (n, u32::from_str_radix(comp, 16).ok())
                    }
                    _ => (full, None),
                };
                // Components of one vector parameter share its source index.
                let same_vector = component.is_some() && last_vector.as_deref() == Some(name);
                if !same_vector && !self.f.params.is_empty() {
                    source_index += 1;
                }
                last_vector = component.map(|_| name.to_string());
                let line = c.line;
                let span = Span::new(
                    FileId(0),
                    line.offset as u32,
                    (line.offset + line.text.len()) as u32,
                );
                let n_param = self.f.params.len() as u32;
                self.f.params.push(Param {
                    name: name.into(),
                    ty,
                    source_index,
                    component,
                    span,
                });
                let ann = if c.eat(":") {
                    Some(self.raw_until_comma(c)?)
                } else {
                    None
                };
                if let Some((n, at)) = value {
                    self.define(n, at, ty, ValueDef::Param(n_param))?;
                    if let Some(a) = ann {
                        self.ann.values.insert(ValueId(n), a);
                    }
                } else if let Some((_, at)) = ann {
                    return Err(at.error("a parameter without a value has no annotation"));
                }
                if c.eat(")") {
                    break;
                }
                c.expect(",")?;
            }
        }
        c.expect("{")?;
        c.expect_end()
    }

    /// The text up to the next `,` or `)` outside parentheses (a parameter's
    /// annotation, which may hold `strided(4, align 4)`).
    fn raw_until_comma(&self, c: &mut Cursor) -> Result<(String, Pos), ParseError> {
        let at = c.here();
        let start = c.pos;
        let mut depth = 0i32;
        for (i, ch) in c.rest().char_indices() {
            match ch {
                '(' => depth += 1,
                ')' if depth > 0 => depth -= 1,
                ')' | ',' if depth == 0 => {
                    let text = c.line.text[start..start + i].trim_end().to_string();
                    c.pos = start + i;
                    if text.is_empty() {
                        return Err(at.error("expected an annotation after `:`"));
                    }
                    return Ok((text, at));
                }
                _ => {}
            }
        }
        Err(c.error("expected `,` or `)` after the parameter's annotation"))
    }

    /// `; @name = constant [N bytes]` or `; @local.name = local [N bytes,
    /// align A]`; any other comment is skipped.
    fn declaration(&mut self, c: &mut Cursor) -> Result<(), ParseError> {
        c.expect(";")?;
        if !c.peek_punct("@") {
            return Ok(());
        }
        let at = c.here();
        if self.current.is_some() {
            return Err(at.error("declarations come before the first block"));
        }
        c.expect("@")?;
        let (name, _) = c.word("a variable name")?;
        c.expect("=")?;
        let (kind, kat) = c.word("`constant` or `local`")?;
        c.expect("[")?;
        let size: u64 = c.number("a size in bytes")?;
        c.expect_word("bytes")?;
        match kind {
            "constant" => {
                c.expect("]")?;
                c.expect_end()?;
                if self.f.globals.iter().any(|g| g.name == name) {
                    return Err(at.error(format!("`@{name}` is declared twice")));
                }
                self.f.globals.push(Global {
                    name: name.into(),
                    bytes: vec![0; size as usize],
                    align: 16,
                    span: self.f.span,
                });
            }
            "local" => {
                c.expect(",")?;
                c.expect_word("align")?;
                let align: u64 = c.number("an alignment")?;
                c.expect("]")?;
                c.expect_end()?;
                let Some(local) = name.strip_prefix("local.") else {
                    return Err(at.error(format!(
                        "a `__local` variable is named `@local.NAME`, found `@{name}`"
                    )));
                };
                if self.f.locals.iter().any(|l| l.name == local) {
                    return Err(at.error(format!("`@{name}` is declared twice")));
                }
                self.f.locals.push(LocalVar {
                    name: local.into(),
                    size,
                    align,
                    span: self.f.span,
                });
            }
            _ => {
                return Err(kat.error(format!("expected `constant` or `local`, found `{kind}`")));
            }
        }
        Ok(())
    }

    /// `bbN.label: ; entry ; predicate %P ; annotation`
    fn block_header(&mut self, c: &mut Cursor) -> Result<(), ParseError> {
        let (w, at) = c.word("a block label")?;
        let (id, label) = split_label(w);
        let id = id.ok_or_else(|| at.error(format!("expected a block label, found `{w}`")))?;
        let expected = self.f.blocks.len() as u32;
        if id != expected {
            return Err(at.error(format!(
                "expected block bb{expected} (blocks are numbered in order), found `bb{id}`"
            )));
        }
        c.expect(":")?;
        let b = self.f.add_block(label);
        self.current = Some(b);
        let mut first = true;
        while c.eat(";") {
            if first && c.eat_word("entry") {
                if let Some(prev) = self.entry {
                    return Err(at.error(format!(
                        "a second entry block (the first is at line {})",
                        prev.line
                    )));
                }
                self.entry = Some(at);
                self.f.entry = b;
                first = false;
                continue;
            }
            first = false;
            let save = c.pos;
            if c.eat_word("predicate") && c.peek_punct("%") {
                let (n, pat) = c.value_id()?;
                self.uses.push((n, pat));
                self.f.block_mut(b).predicate = Some(ValueId(n));
                if c.at_end() || c.peek_punct(";") {
                    continue;
                }
            }
            c.pos = save;
            let item = c.rest().split(';').next().unwrap_or("");
            if let Some(u) = unroll_hint(item) {
                self.f.block_mut(b).unroll = Some(u);
                c.pos += item.len();
                continue;
            }
            let aat = c.here();
            let text = c.rest().trim_end().to_string();
            c.pos = c.line.text.len();
            self.ann.blocks.insert(b, (text, aat));
        }
        c.expect_end()
    }

    fn define(&mut self, n: u32, at: Pos, ty: Ty, def: ValueDef) -> Result<(), ParseError> {
        if let Some(prev) = self.defined.insert(n, at) {
            return Err(at.error(format!(
                "%{n} is defined twice (first at line {})",
                prev.line
            )));
        }
        if self.f.values.len() <= n as usize {
            // Ids the text does not define (removed instructions, the
            // printer's constants) stay as placeholders nobody uses.
            self.f.values.resize(
                n as usize + 1,
                Value {
                    def: ValueDef::Const(Const::Undef(Ty::Void)),
                    ty: Ty::Void,
                },
            );
        }
        self.f.values[n as usize] = Value { def, ty };
        self.types.insert(n, ty);
        Ok(())
    }

    /// An operand: `%N`, `true`, `false`, `null`, `@g`, `@local.x`, or a
    /// type and a literal (`i32 -5`, `f32 0.5`, `f32 undef`). `expected` is
    /// the type the instruction states for it, if any.
    fn operand(&mut self, c: &mut Cursor, expected: Option<Ty>) -> Result<ValueId, ParseError> {
        let at = c.here();
        if c.peek_punct("%") {
            let (n, at) = c.value_id()?;
            self.uses.push((n, at));
            if let Some(t) = expected {
                self.typed_uses.push((n, t, at));
            }
            return Ok(ValueId(n));
        }
        if c.eat("@") {
            let (name, _) = c.word("a variable name")?;
            return self.declared(name, at);
        }
        let w = c.peek_word();
        let k = match w {
            "true" | "false" => {
                c.word("a constant")?;
                Const::Int(u64::from(w == "true"), Ty::I1)
            }
            "null" => {
                c.word("a constant")?;
                let space = match expected {
                    Some(Ty::Ptr(s)) => s,
                    _ => AddressSpace::Generic,
                };
                Const::Null(space)
            }
            _ => {
                let ty = self.ty(c).map_err(|_| {
                    at.error(format!(
                        "expected an operand (`%N`, a constant such as `i32 4`, `@name`), found {}",
                        c.found()
                    ))
                })?;
                if c.eat_word("undef") {
                    Const::Undef(ty)
                } else {
                    let (lit, lat) = c.word("a literal")?;
                    if ty.is_int() && ty != Ty::I1 {
                        let v: i64 = lit.parse().map_err(|_| {
                            lat.error(format!("expected an integer of type {ty}, found `{lit}`"))
                        })?;
                        Const::int(v, ty)
                    } else if ty.is_float() {
                        let v: f64 = lit.parse().map_err(|_| {
                            lat.error(format!("expected a number of type {ty}, found `{lit}`"))
                        })?;
                        Const::Float(v, ty)
                    } else {
                        return Err(lat.error(format!(
                            "a constant of type {ty} is written `{}`",
                            if ty == Ty::I1 {
                                "true`/`false"
                            } else if ty.is_ptr() {
                                "null` or `undef"
                            } else {
                                "undef"
                            }
                        )));
                    }
                }
            }
        };
        Ok(self.extra_value(ValueDef::Const(k), k.ty()))
    }

    fn extra_value(&mut self, def: ValueDef, ty: Ty) -> ValueId {
        self.extra.push(Value { def, ty });
        ValueId(CONST_BASE + self.extra.len() as u32 - 1)
    }

    /// The value of `@name` (one per declaration).
    fn declared(&mut self, name: &str, at: Pos) -> Result<ValueId, ParseError> {
        if let Some(&v) = self.decl_values.get(name) {
            return Ok(v);
        }
        let local = name
            .strip_prefix("local.")
            .and_then(|l| self.f.locals.iter().position(|x| x.name == l));
        let (def, ty) = match local {
            Some(i) => (ValueDef::Local(i as u32), Ty::Ptr(AddressSpace::Local)),
            None => match self.f.globals.iter().position(|g| g.name == name) {
                Some(i) => (ValueDef::Global(i as u32), Ty::Ptr(AddressSpace::Constant)),
                None => {
                    return Err(at.error(format!(
                        "`@{name}` is not declared (`; @{name} = constant [N bytes]` or `; @local.x = local [N bytes, align A]` before the first block)"
                    )))
                }
            },
        };
        let v = self.extra_value(def, ty);
        self.decl_values.insert(name.to_string(), v);
        Ok(v)
    }
}

/// A block header's `; unroll`, `; unroll full`, `; unroll N` or
/// `; nounroll` item.
fn unroll_hint(rest: &str) -> Option<crate::ir::Unroll> {
    use crate::ir::Unroll;
    let words: Vec<&str> = rest.split_whitespace().collect();
    match words.as_slice() {
        ["unroll"] => Some(Unroll::Enable),
        ["unroll", "full"] => Some(Unroll::Full),
        ["nounroll"] => Some(Unroll::Disable),
        ["unroll", n] => n.parse().ok().filter(|&n| n > 1).map(Unroll::Count),
        _ => None,
    }
}

fn split_label(w: &str) -> (Option<u32>, &str) {
    let Some(rest) = w.strip_prefix("bb") else {
        return (None, "");
    };
    let (num, label) = rest.split_once('.').unwrap_or((rest, ""));
    (num.parse().ok(), label)
}

impl FunctionReader<'_> {
    fn block_ref(&mut self, c: &mut Cursor) -> Result<BlockId, ParseError> {
        let (w, at) = c.word("a block label")?;
        match split_label(w) {
            (Some(n), label) => {
                self.block_refs.push(BlockRef {
                    id: BlockId(n),
                    label: label.to_string(),
                    pos: at,
                });
                Ok(BlockId(n))
            }
            _ => Err(at.error(format!("expected a block label `bbN.label`, found `{w}`"))),
        }
    }

    /// Operands separated by `,` up to `)` (the `(` is consumed already).
    fn call_args(&mut self, c: &mut Cursor) -> Result<Vec<ValueId>, ParseError> {
        let mut args = Vec::new();
        if c.eat(")") {
            return Ok(args);
        }
        loop {
            args.push(self.operand(c, None)?);
            if c.eat(")") {
                return Ok(args);
            }
            c.expect(",")?;
        }
    }

    fn align(&mut self, c: &mut Cursor) -> Result<u64, ParseError> {
        c.expect(",")?;
        c.expect_word("align")?;
        c.number("an alignment")
    }

    /// `[%N = ] body [: annotation]`
    fn instruction(&mut self, c: &mut Cursor) -> Result<(), ParseError> {
        let start = c.here();
        let Some(block) = self.current else {
            return Err(start.error("an instruction before the first block label"));
        };
        let result = if c.peek_punct("%") {
            let r = c.value_id()?;
            c.expect("=")?;
            Some(r)
        } else {
            None
        };
        let (kind, ty, pending_ptradd) = self.body(c)?;
        let ann = if c.eat(":") {
            let at = c.here();
            let text = c.rest().trim_end().to_string();
            if text.is_empty() {
                return Err(at.error("expected an annotation after `:`"));
            }
            c.pos = c.line.text.len();
            Some((text, at))
        } else {
            None
        };
        c.expect_end()?;
        let line = c.line;
        let src = Src {
            node: NodeId(0),
            span: Span::new(
                FileId(0),
                line.offset as u32,
                (line.offset + line.text.len()) as u32,
            ),
        };
        let id = InstId(self.f.insts.len() as u32);
        let has_value = ty != Ty::Void || pending_ptradd.is_some();
        match (result, has_value) {
            (Some((n, at)), true) => {
                self.define(n, at, ty, ValueDef::Inst(id))?;
                if std::mem::take(&mut self.nsw) {
                    self.f.nsw.insert(ValueId(n));
                }
                if let Some(base) = pending_ptradd {
                    self.ptradds.push((n, base));
                }
                if let Some(a) = ann {
                    self.ann.values.insert(ValueId(n), a);
                }
            }
            (Some((_, at)), false) => {
                return Err(at.error("this instruction has no result (its type is void)"))
            }
            (None, true) => {
                return Err(start.error("this instruction has a result: write `%N = ` before it"))
            }
            (None, false) => {
                if let Some((_, at)) = ann {
                    return Err(at.error("an instruction without a result has no annotation"));
                }
            }
        }
        self.f.insts.push(Inst {
            kind,
            ty,
            block,
            result: result.map(|(n, _)| ValueId(n)),
            src,
        });
        self.f.block_mut(block).insts.push(id);
        self.inst_pos.push(start);
        Ok(())
    }

    /// The instruction after `%N =`: its kind, its result type, and for a
    /// `ptradd` the base whose type the result takes.
    fn body(&mut self, c: &mut Cursor) -> Result<(InstKind, Ty, Option<ValueId>), ParseError> {
        let (op, at) = c.word("an instruction")?;
        let kind = match op {
            "phi" => {
                let ty = self.ty(c)?;
                let mut incoming = Vec::new();
                loop {
                    c.expect("[")?;
                    let b = self.block_ref(c)?;
                    c.expect(":")?;
                    let v = self.operand(c, Some(ty))?;
                    c.expect("]")?;
                    incoming.push((b, v));
                    if !c.eat(",") {
                        break;
                    }
                }
                return Ok((InstKind::Phi { incoming }, ty, None));
            }
            "fneg" => {
                let ty = self.ty(c)?;
                let v = self.operand(c, Some(ty))?;
                return Ok((InstKind::FNeg(v), ty, None));
            }
            "cmp" => {
                let (p, pat) = c.word("a comparison predicate")?;
                let pred =
                    cmp_pred(p).ok_or_else(|| pat.error(format!("unknown predicate `{p}`")))?;
                let ty = self.ty(c)?;
                let lhs = self.operand(c, Some(ty))?;
                c.expect(",")?;
                let rhs = self.operand(c, Some(ty))?;
                return Ok((InstKind::Cmp { pred, lhs, rhs }, Ty::I1, None));
            }
            "select" => {
                let ty = self.ty(c)?;
                let cond = self.operand(c, Some(Ty::I1))?;
                c.expect(",")?;
                let then = self.operand(c, Some(ty))?;
                c.expect(",")?;
                let els = self.operand(c, Some(ty))?;
                return Ok((InstKind::Select { cond, then, els }, ty, None));
            }
            "alloca" => {
                let size = c.number("a size in bytes")?;
                c.expect_word("bytes")?;
                let align = self.align(c)?;
                return Ok((
                    InstKind::Alloca { size, align },
                    Ty::Ptr(AddressSpace::Private),
                    None,
                ));
            }
            "load" => {
                let ty = self.ty(c)?;
                let ptr = self.operand(c, None)?;
                let align = self.align(c)?;
                return Ok((InstKind::Load { ptr, align }, ty, None));
            }
            "store" => {
                let ty = self.ty(c)?;
                let value = self.operand(c, Some(ty))?;
                c.expect(",")?;
                let ptr = self.operand(c, None)?;
                let align = self.align(c)?;
                return Ok((InstKind::Store { ptr, value, align }, Ty::Void, None));
            }
            "ptradd" => {
                let base = self.operand(c, None)?;
                c.expect(",")?;
                let offset = self.operand(c, Some(Ty::I64))?;
                return Ok((InstKind::PtrAdd { base, offset }, Ty::Void, Some(base)));
            }
            "barrier" => {
                let (w, fat) = c.word("fence flags")?;
                let flags = fence_flags(w)
                    .ok_or_else(|| fat.error(format!("expected fence flags, found `{w}`")))?;
                return Ok((InstKind::Barrier { flags }, Ty::Void, None));
            }
            "printf" => {
                let ty = self.ty(c)?;
                let format = c.string()?;
                c.expect("(")?;
                let args = self.call_args(c)?;
                return Ok((
                    InstKind::Printf {
                        format: format.into(),
                        args,
                    },
                    ty,
                    None,
                ));
            }
            "br" => {
                if c.peek_word().starts_with("bb") {
                    let b = self.block_ref(c)?;
                    return Ok((InstKind::Br(b), Ty::Void, None));
                }
                let cond = self.operand(c, Some(Ty::I1))?;
                c.expect(",")?;
                let then = self.block_ref(c)?;
                c.expect(",")?;
                let els = self.block_ref(c)?;
                return Ok((InstKind::CondBr { cond, then, els }, Ty::Void, None));
            }
            "switch" => {
                let ty = self.ty(c)?;
                let value = self.operand(c, Some(ty))?;
                c.expect(",")?;
                c.expect_word("default")?;
                let default = self.block_ref(c)?;
                c.expect("[")?;
                let mut cases = Vec::new();
                if !c.eat("]") {
                    loop {
                        let k: i64 = c.number("a case value")?;
                        c.expect("=>")?;
                        let b = self.block_ref(c)?;
                        cases.push((truncate(k as u64, ty.bits()), b));
                        if c.eat("]") {
                            break;
                        }
                        c.expect(",")?;
                    }
                }
                return Ok((
                    InstKind::Switch {
                        value,
                        default,
                        cases,
                    },
                    Ty::Void,
                    None,
                ));
            }
            "ret" => return Ok((InstKind::Ret, Ty::Void, None)),
            "unreachable" => return Ok((InstKind::Unreachable, Ty::Void, None)),
            _ => op,
        };
        if let Some(o) = binop(kind) {
            self.nsw = c.eat_word("nsw");
            let ty = self.ty(c)?;
            let lhs = self.operand(c, Some(ty))?;
            c.expect(",")?;
            let rhs = self.operand(c, Some(ty))?;
            return Ok((InstKind::Bin { op: o, lhs, rhs }, ty, None));
        }
        if let Some(h) = kind.strip_prefix("sub_group.") {
            let op = horizontal(h).ok_or_else(|| at.error(format!("unknown `{kind}`")))?;
            let ty = self.ty(c)?;
            c.expect("(")?;
            let args = self.call_args(c)?;
            return Ok((InstKind::Horizontal { op, args }, ty, None));
        }
        if let Some(h) = kind.strip_prefix("work_group.") {
            let op = horizontal(h).ok_or_else(|| at.error(format!("unknown `{kind}`")))?;
            let ty = self.ty(c)?;
            c.expect("(")?;
            let args = self.call_args(c)?;
            return Ok((InstKind::WorkGroup { op, args }, ty, None));
        }
        if let Some(a) = kind.strip_prefix("atomic.") {
            let op = atomic_op(a).ok_or_else(|| at.error(format!("unknown `{kind}`")))?;
            let ty = self.ty(c)?;
            let ptr = self.operand(c, None)?;
            let mut args = Vec::new();
            while c.eat(",") {
                args.push(self.operand(c, None)?);
            }
            return Ok((InstKind::Atomic { op, ptr, args }, ty, None));
        }
        if let Some(rest) = kind.strip_prefix("read_image") {
            let (sfx, comp) = rest
                .split_once('.')
                .ok_or_else(|| at.error(format!("unknown `{kind}`")))?;
            let elem = image_elem(sfx).ok_or_else(|| at.error(format!("unknown `{kind}`")))?;
            let component = ["x", "y", "z", "w"]
                .iter()
                .position(|&n| n == comp)
                .ok_or_else(|| at.error(format!("unknown component in `{kind}`")))?
                as u8;
            let ty = self.ty(c)?;
            let image = self.operand(c, None)?;
            c.expect(",")?;
            let sampler = if c.eat("(") {
                None
            } else {
                let s = self.operand(c, None)?;
                c.expect(",")?;
                c.expect("(")?;
                Some(s)
            };
            let coords = self.call_args(c)?;
            return Ok((
                InstKind::ImageRead {
                    image,
                    sampler,
                    coords,
                    elem,
                    component,
                },
                ty,
                None,
            ));
        }
        if let Some(sfx) = kind.strip_prefix("write_image") {
            let elem = image_elem(sfx).ok_or_else(|| at.error(format!("unknown `{kind}`")))?;
            let image = self.operand(c, None)?;
            c.expect(",")?;
            c.expect("(")?;
            let coords = self.call_args(c)?;
            c.expect(",")?;
            c.expect("(")?;
            let values = self.call_args(c)?;
            return Ok((
                InstKind::ImageWrite {
                    image,
                    coords,
                    values,
                    elem,
                },
                Ty::Void,
                None,
            ));
        }
        if let Some(o) = cast_op(kind) {
            // `trunc` is also a math function: `trunc f32(%x)`.
            let save = c.pos;
            let from = self.ty(c)?;
            if !c.peek_punct("(") {
                let value = self.operand(c, Some(from))?;
                c.expect_word("to")?;
                let to = self.ty(c)?;
                return Ok((InstKind::Cast { op: o, value }, to, None));
            }
            c.pos = save;
        }
        let ty_then_args = |this: &mut Self, c: &mut Cursor| -> Result<_, ParseError> {
            let ty = this.ty(c)?;
            c.expect("(")?;
            Ok((ty, this.call_args(c)?))
        };
        if let Some(query) = work_item(kind) {
            let (ty, args) = ty_then_args(self, c)?;
            if args.len() > 1 {
                return Err(at.error(format!("`{kind}` takes at most one operand")));
            }
            let dim = args.first().copied();
            return Ok((InstKind::WorkItem { query, dim }, ty, None));
        }
        if let Some(func) = math_fn(kind) {
            let (ty, args) = ty_then_args(self, c)?;
            if args.len() != func.arity() {
                return Err(at.error(format!(
                    "`{kind}` takes {} operand(s), found {}",
                    func.arity(),
                    args.len()
                )));
            }
            return Ok((InstKind::Math { func, args }, ty, None));
        }
        if let Some(query) = image_query(kind) {
            let (ty, args) = ty_then_args(self, c)?;
            let [image] = args[..] else {
                return Err(at.error(format!("`{kind}` takes one image operand")));
            };
            return Ok((InstKind::ImageQuery { query, image }, ty, None));
        }
        Err(at.error(format!("unknown instruction `{kind}`")))
    }

    /// Checks what needed the whole function and numbers the constants.
    fn finish(&mut self, kernel_pos: Pos) -> Result<(), ParseError> {
        if self.f.blocks.is_empty() {
            return Err(kernel_pos.error("a function needs at least one block"));
        }
        if self.entry.is_none() && self.f.blocks.len() > 1 {
            return Err(kernel_pos.error("no block is marked `; entry`"));
        }
        for r in &self.block_refs {
            match self.f.blocks.get(r.id.index()) {
                None => {
                    return Err(r.pos.error(format!("block bb{} does not exist", r.id.0)));
                }
                Some(b) if b.label != r.label.as_str() => {
                    return Err(r.pos.error(format!(
                        "block bb{} is labelled `{}`, not `{}`",
                        r.id.0, b.label, r.label
                    )));
                }
                _ => {}
            }
        }
        for &(n, at) in &self.uses {
            if !self.defined.contains_key(&n) {
                return Err(at.error(format!("%{n} is not defined")));
            }
        }
        // A ptradd has its base's type; bases may be other ptradds, defined
        // later in the text.
        let base_ty = |types: &HashMap<u32, Ty>, extra: &[Value], v: ValueId| {
            if v.0 >= CONST_BASE {
                extra.get((v.0 - CONST_BASE) as usize).map(|x| x.ty)
            } else {
                types.get(&v.0).copied().filter(|t| *t != Ty::Void)
            }
        };
        let mut pending = self.ptradds.clone();
        while !pending.is_empty() {
            let before = pending.len();
            pending.retain(|&(n, base)| match base_ty(&self.types, &self.extra, base) {
                Some(t) => {
                    self.types.insert(n, t);
                    self.f.values[n as usize].ty = t;
                    false
                }
                None => true,
            });
            if pending.len() == before {
                let (n, _) = pending[0];
                let at = self.defined[&n];
                return Err(at.error(format!("the base of `ptradd` %{n} has no pointer type")));
            }
        }
        for r in self.ptradds.iter().map(|&(n, _)| n) {
            let id = self.f.values[r as usize].def.clone();
            if let ValueDef::Inst(i) = id {
                self.f.insts[i.index()].ty = self.f.values[r as usize].ty;
            }
        }
        for &(n, ty, at) in &self.typed_uses {
            let have = self.types[&n];
            if have != ty {
                return Err(at.error(format!("%{n} has type {have}, not {ty}")));
            }
        }
        let base = self.f.values.len() as u32;
        self.f.values.append(&mut self.extra);
        let renumber = |v: &mut ValueId| {
            if v.0 >= CONST_BASE {
                v.0 = v.0 - CONST_BASE + base;
            }
        };
        for inst in &mut self.f.insts {
            inst.kind.for_each_operand_mut(renumber);
        }
        Ok(())
    }
}
