//! Document symbols, go to definition, references, document highlight and
//! rename, from the resolved name occurrences of the file.
//!
//! References, highlights and rename work on the file's own text (an
//! occurrence inside an included header is not edited); go to definition
//! may lead into a header. Rename covers variables, parameters, functions,
//! `__constant` globals, struct fields and macros; types (struct tags,
//! typedef names) and built-ins are not renamed.

use lanes_db::{Db, File};
use lanes_frontend::source::Span;

use super::context::Ctx;
use super::index::{self, Role, Sym, SymbolIndex};
use super::semantic::is_keyword_or_type;
use super::{Location, TextEdit, TextRange};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SymbolKind {
    Kernel,
    Function,
    Struct,
    Field,
    Constant,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DocumentSymbol {
    pub name: String,
    /// The signature or type.
    pub detail: String,
    pub kind: SymbolKind,
    /// The whole definition.
    pub range: TextRange,
    /// The name.
    pub selection_range: TextRange,
    pub children: Vec<DocumentSymbol>,
}

/// The file's kernels, functions, structs (with fields) and constants.
pub fn document_symbols(db: &dyn Db, file: File) -> Vec<DocumentSymbol> {
    let ctx = Ctx::new(db, file);
    let hir = &ctx.parsed.unit.hir;
    let items = &ctx.parsed.unit.ast.items;
    // The whole top-level item around a name.
    let item_range = |s: Span| -> TextRange {
        items
            .iter()
            .find(|i| i.span.contains(s))
            .and_then(|i| ctx.range(i.span))
            .unwrap_or(TextRange::new(s.start, s.end))
    };
    let mut out = Vec::new();
    for f in &hir.functions {
        let Some(sel) = ctx.range(f.name_span) else {
            continue;
        };
        let params: Vec<String> = f
            .params
            .iter()
            .map(|&p| {
                let l = f.local(p);
                super::context::decl_text(&hir.type_name(&l.ty), &l.name)
            })
            .collect();
        let range = ctx
            .range(f.span)
            .filter(|r| r.start <= sel.start && sel.end <= r.end)
            .unwrap_or_else(|| item_range(f.name_span));
        out.push(DocumentSymbol {
            name: f.name.to_string(),
            detail: format!("{}({})", hir.type_name(&f.ret), params.join(", ")),
            kind: if f.is_kernel {
                SymbolKind::Kernel
            } else {
                SymbolKind::Function
            },
            range,
            selection_range: sel,
            children: Vec::new(),
        });
    }
    for s in &hir.structs {
        let Some(sel) = ctx.range(s.span) else {
            continue;
        };
        let children = s
            .fields
            .iter()
            .filter_map(|fd| {
                let r = ctx.range(fd.span)?;
                Some(DocumentSymbol {
                    name: fd.name.to_string(),
                    detail: hir.type_name(&fd.ty),
                    kind: SymbolKind::Field,
                    range: r,
                    selection_range: r,
                    children: Vec::new(),
                })
            })
            .collect();
        out.push(DocumentSymbol {
            name: s.name.to_string(),
            detail: format!("{} bytes", s.size),
            kind: SymbolKind::Struct,
            range: item_range(s.span),
            selection_range: sel,
            children,
        });
    }
    for g in &hir.globals {
        let Some(sel) = ctx.range(g.name_span) else {
            continue;
        };
        out.push(DocumentSymbol {
            name: g.name.to_string(),
            detail: hir.type_name(&g.ty),
            kind: SymbolKind::Constant,
            range: item_range(g.name_span),
            selection_range: sel,
            children: Vec::new(),
        });
    }
    out.sort_by_key(|s| s.range.start);
    out
}

/// Where the name at the offset is defined.
pub fn goto_definition(db: &dyn Db, file: File, offset: u32) -> Option<Location> {
    let ctx = Ctx::new(db, file);
    let index = SymbolIndex::build(&ctx);
    let occ = index.at(offset)?;
    let def = index::definition(&ctx, &occ.sym)?;
    ctx.location(def)
}

/// Every occurrence in this file of the name at the offset (with or
/// without its definition and declarations), by position.
pub fn references(
    db: &dyn Db,
    file: File,
    offset: u32,
    include_declaration: bool,
) -> Vec<TextRange> {
    let ctx = Ctx::new(db, file);
    let index = SymbolIndex::build(&ctx);
    let Some(occ) = index.at(offset) else {
        return Vec::new();
    };
    index
        .of(&occ.sym)
        .filter(|o| include_declaration || !matches!(o.role, Role::Definition | Role::Declaration))
        .map(|o| o.range)
        .collect()
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HighlightKind {
    Text,
    Read,
    Write,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Highlight {
    pub range: TextRange,
    pub kind: HighlightKind,
}

/// The occurrences of the name at the offset, marked as reads or writes
/// (a definition counts as a write).
pub fn document_highlight(db: &dyn Db, file: File, offset: u32) -> Vec<Highlight> {
    let ctx = Ctx::new(db, file);
    let index = SymbolIndex::build(&ctx);
    let Some(occ) = index.at(offset) else {
        return Vec::new();
    };
    index
        .of(&occ.sym)
        .map(|o| Highlight {
            range: o.range,
            kind: match o.role {
                Role::Definition | Role::Write => HighlightKind::Write,
                Role::Read => HighlightKind::Read,
                Role::Declaration => HighlightKind::Text,
            },
        })
        .collect()
}

/// The name under the cursor and its text, if it can be renamed.
pub fn prepare_rename(db: &dyn Db, file: File, offset: u32) -> Result<(TextRange, String), String> {
    let ctx = Ctx::new(db, file);
    let index = SymbolIndex::build(&ctx);
    let occ = index.at(offset).ok_or("no symbol here")?;
    check_renamable(&ctx, &occ.sym)?;
    Ok((occ.range, index::name_of(&ctx, &occ.sym).to_string()))
}

fn check_renamable(ctx: &Ctx<'_>, sym: &Sym) -> Result<(), String> {
    match sym {
        Sym::Builtin(n) => return Err(format!("`{n}` is an OpenCL built-in")),
        Sym::Struct(_) => return Err("renaming types is not supported".to_string()),
        _ => {}
    }
    match index::definition(ctx, sym) {
        Some(d) if ctx.range(d).is_some() => Ok(()),
        Some(_) => Err("defined in another file".to_string()),
        None => Err("no definition found".to_string()),
    }
}

/// Renames the symbol at the offset everywhere in this file. Fails when the
/// new name is not an identifier, is a keyword, type or built-in, or is
/// already used for something the symbol could clash with.
pub fn rename(
    db: &dyn Db,
    file: File,
    offset: u32,
    new_name: &str,
) -> Result<Vec<TextEdit>, String> {
    let ctx = Ctx::new(db, file);
    let index = SymbolIndex::build(&ctx);
    let occ = index.at(offset).ok_or("no symbol here")?;
    check_renamable(&ctx, &occ.sym)?;
    let valid = new_name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && new_name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !valid {
        return Err(format!("`{new_name}` is not an identifier"));
    }
    if is_keyword_or_type(new_name) || lanes_frontend::builtins::is_builtin_name(new_name) {
        return Err(format!(
            "`{new_name}` is a keyword, type or built-in of OpenCL C"
        ));
    }
    let old = index::name_of(&ctx, &occ.sym);
    if old == new_name {
        return Ok(Vec::new());
    }
    // The preprocessor would replace the new name by the macro's body.
    if !matches!(occ.sym, Sym::Macro(_)) {
        if let Some(def) = macro_definition(&ctx, new_name) {
            return Err(format!(
                "`{new_name}` is {def}: the preprocessor would replace the renamed name by its expansion"
            ));
        }
    }
    if let Some(other) = clash(&ctx, &occ.sym, new_name) {
        return Err(format!("`{new_name}` is already {other}"));
    }
    Ok(index
        .of(&occ.sym)
        .map(|o| TextEdit {
            range: o.range,
            new_text: new_name.to_string(),
        })
        .collect())
}

/// Where a macro called `name` is defined in any file of the unit (the
/// predefined ones are in `<built-in>`, with the `-D` options): a
/// `#define` anywhere counts, since it may be in force at a use.
fn macro_definition(ctx: &Ctx<'_>, name: &str) -> Option<String> {
    for (_, file) in ctx.parsed.unit.sources.files() {
        for (n, line) in file.text.lines().enumerate() {
            let Some(rest) = line.trim_start().strip_prefix('#') else {
                continue;
            };
            let Some(rest) = rest.trim_start().strip_prefix("define") else {
                continue;
            };
            if !rest.starts_with([' ', '\t']) {
                continue;
            }
            let rest = rest.trim_start();
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            if &rest[..end] != name {
                continue;
            }
            return Some(if file.name.starts_with('<') {
                "a predefined macro".to_string()
            } else {
                format!("a macro (`#define` at line {} of `{}`)", n + 1, file.name)
            });
        }
    }
    None
}

/// What else is called `name` where the renamed symbol is visible.
fn clash(ctx: &Ctx<'_>, sym: &Sym, name: &str) -> Option<String> {
    let hir = &ctx.parsed.unit.hir;
    let global = || -> Option<String> {
        if hir.functions.iter().any(|f| f.name == name) {
            return Some("a function".into());
        }
        if hir.globals.iter().any(|g| g.name == name) {
            return Some("a constant".into());
        }
        if hir
            .structs
            .iter()
            .any(|s| s.name == name && s.is_typedef_name)
        {
            return Some("a type".into());
        }
        if ctx
            .parsed
            .unit
            .preprocessed
            .expansions
            .iter()
            .any(|e| e.macro_name == name)
        {
            return Some("a macro".into());
        }
        None
    };
    match sym {
        Sym::Local { func, .. } => {
            let f = hir.functions.get(*func as usize)?;
            if f.locals.iter().any(|l| l.name == name) {
                return Some(format!("a variable of `{}`", f.name));
            }
            global()
        }
        Sym::Field { strukt, .. } => {
            let s = hir.structs.get(*strukt as usize)?;
            s.fields
                .iter()
                .any(|f| f.name == name)
                .then(|| format!("a field of `{}`", s.name))
        }
        Sym::Global(_) | Sym::Function(_) | Sym::Macro(_) => {
            if let Some(g) = global() {
                return Some(g);
            }
            hir.functions
                .iter()
                .any(|f| f.locals.iter().any(|l| l.name == name))
                .then(|| "a variable in this file".to_string())
        }
        Sym::Struct(_) | Sym::Builtin(_) => None,
    }
}
