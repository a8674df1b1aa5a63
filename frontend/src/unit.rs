//! One compilation unit through the whole front end: read, preprocess, parse,
//! check. This is what `lanes check` and the later stages call.

use std::path::{Path, PathBuf};

use crate::ast::{self, TranslationUnit};
use crate::diag::Diagnostic;
use crate::hir;
use crate::lexer::{LexMemo, Token, TokenKind};
use crate::moved::{Edit, Move, MoveSpans};
use crate::parser::FileScope;
use crate::preprocess::{self, FileLoader, PreprocessOptions, Preprocessed, SameEnds};
use crate::sema::Checks;
use crate::source::{FileId, SourceFile, SourceMap};

/// Everything the front end knows about one main file.
#[derive(Clone, Default)]
pub struct CheckedUnit {
    pub sources: SourceMap,
    pub main: FileId,
    pub preprocessed: Preprocessed,
    pub ast: TranslationUnit,
    pub hir: hir::Unit,
    /// All diagnostics of all stages, in the order they were found.
    pub diagnostics: Vec<Diagnostic>,
    /// What the parser's items declared at file scope (to parse one of
    /// them again after an edit, [`crate::reparse`]).
    pub file_scope: FileScope,
    /// What checking each item did (to check one function definition
    /// again after an edit, [`crate::sema::check_function_again`]).
    pub checks: Checks,
    /// `Some(k)` when only `ast.items[k]` was parsed again after an edit
    /// of the previous unit's main file ([`check_source_reparsing`]): every
    /// token outside that function definition is then the previous unit's,
    /// moved by the edit, so every other item is where it was, moved.
    pub reparsed: Option<usize>,
    /// True when only the lines an edit changed were preprocessed again
    /// ([`crate::preprocess::preprocess_edited`]): no file was read.
    pub preprocessed_edited: bool,
}

impl CheckedUnit {
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// Checks source text that is not (necessarily) on disk, e.g. an editor buffer.
/// `path` is used to resolve relative `#include`s.
pub fn check_text(
    name: &str,
    path: Option<PathBuf>,
    text: &str,
    options: &PreprocessOptions,
    loader: &dyn FileLoader,
) -> CheckedUnit {
    check_source(SourceFile::new(name, path, text), options, loader)
}

/// Checks a main file already made into a [`SourceFile`] (e.g. one decoded
/// from disk, which keeps where its first Latin-1 byte is).
pub fn check_source(
    file: SourceFile,
    options: &PreprocessOptions,
    loader: &dyn FileLoader,
) -> CheckedUnit {
    let mut sources = SourceMap::new();
    let main = sources.add(file);
    check_in(sources, main, options, loader, None, None)
}

/// Reads and checks a file.
pub fn check_file(
    path: &Path,
    options: &PreprocessOptions,
    loader: &dyn FileLoader,
) -> std::io::Result<CheckedUnit> {
    let source = loader.read(path)?;
    let name = path.display().to_string();
    let file = SourceFile::decoded(name, Some(path.to_path_buf()), source);
    Ok(check_source(file, options, loader))
}

/// [`check_source`] for a file checked again after an edit: the main file
/// is lexed again only where its text changed since the text `memo` holds
/// (see [`crate::lexer::lex_reusing`]). The result is exactly
/// [`check_source`]'s.
pub fn check_source_reusing(
    file: SourceFile,
    options: &PreprocessOptions,
    loader: &dyn FileLoader,
    memo: &mut LexMemo,
) -> CheckedUnit {
    let mut sources = SourceMap::new();
    let main = sources.add(file);
    check_in(sources, main, options, loader, Some(memo), None)
}

/// [`check_source_reusing`] after an edit of the main file of `previous`
/// (the unit of the text `memo` holds, whatever its options and headers):
/// when the preprocessor's tokens changed only inside one function
/// definition, only that definition is parsed again ([`crate::reparse`]),
/// and when the edit was inside its body, only it is checked again
/// ([`crate::sema::check_function_again`]); the preprocessor runs on the
/// whole file, unless `same_inputs` (`previous` was checked with these
/// options and every file it read still has the same text) and the edit
/// cannot change the preprocessor's state: then only the edited lines are
/// preprocessed again ([`crate::preprocess::preprocess_edited`]) and no
/// file is read. The result is exactly [`check_source`]'s.
pub fn check_source_reparsing(
    file: SourceFile,
    options: &PreprocessOptions,
    loader: &dyn FileLoader,
    memo: &mut LexMemo,
    previous: &CheckedUnit,
    same_inputs: bool,
) -> CheckedUnit {
    let old = previous.sources.get(previous.main);
    let edit = (old.name == file.name && old.path == file.path)
        .then(|| Edit::between(previous.main, &old.text, &file.text));
    let edited = match edit {
        Some(e) if same_inputs => preprocess_edited(previous, &file, e, memo),
        _ => None,
    };
    if let Some((preprocessed, same)) = edited {
        let mut sources = previous.sources.clone();
        sources.replace(previous.main, file);
        let main = previous.main;
        let previous = edit.map(|e| (previous, e, same));
        let mut unit = check_preprocessed(sources, main, preprocessed, Vec::new(), previous);
        unit.preprocessed_edited = true;
        return unit;
    }
    let mut sources = SourceMap::new();
    let main = sources.add(file);
    let previous = edit
        .filter(|_| main == previous.main)
        .map(|e| (previous, e));
    check_in(sources, main, options, loader, Some(memo), previous)
}

/// The new text's preprocessed tokens from `previous`'s, when the edit
/// cannot have changed the preprocessor's state (see
/// [`crate::preprocess::preprocess_edited`]) and neither the previous
/// lexing and preprocessing nor the new lexing reported anything.
fn preprocess_edited(
    previous: &CheckedUnit,
    file: &SourceFile,
    edit: Edit,
    memo: &mut LexMemo,
) -> Option<(Preprocessed, SameEnds)> {
    let old = previous.sources.get(previous.main);
    if previous.checks.first != 0
        || old.latin1_at.is_some()
        || file.latin1_at.is_some()
        || previous.main != FileId(0)
    {
        return None;
    }
    let mut lex_diags = Vec::new();
    let tokens = crate::lexer::lex_reusing(previous.main, &file.text, memo, &mut lex_diags);
    if !lex_diags.is_empty() {
        return None;
    }
    let newlines = |t: &str, r: std::ops::Range<usize>| t[r].matches('\n').count();
    let lines_moved = newlines(&old.text, edit.from as usize..edit.to as usize)
        != newlines(&file.text, edit.new_range());
    crate::preprocess::preprocess_edited(
        &previous.preprocessed,
        previous.main,
        edit,
        lines_moved,
        &tokens,
    )
}

/// [`check_source_reusing`] after an edit of the main file that changed
/// only comments and whitespace (outside directive lines, and not the line
/// of a `__LINE__` when the file uses it): `previous` is the unit of the
/// text `memo` holds, checked with the same options and headers. The result
/// is `previous` with its positions moved, which is exactly what checking
/// the new text gives. `None` when the edit changed more; `memo` then holds
/// the new text's tokens, which `check_source_reusing` reuses.
pub fn recheck_moved(
    previous: &CheckedUnit,
    file: SourceFile,
    memo: &mut LexMemo,
) -> Option<CheckedUnit> {
    let main = previous.main;
    let old = previous.sources.get(main);
    if old.name != file.name || old.path != file.path {
        return None;
    }
    // A Latin-1 byte is reported where it is; such files take the long way.
    if old.latin1_at.is_some() || file.latin1_at.is_some() {
        return None;
    }
    let (memo_file, memo_text, old_tokens) = memo.last()?;
    if memo_file != main || **memo_text != *old.text {
        return None;
    }
    let old_tokens = old_tokens.clone();
    let mut lex_diags = Vec::new();
    let new_tokens = crate::lexer::lex_reusing(main, &file.text, memo, &mut lex_diags);
    if !lex_diags.is_empty() || old_tokens.len() != new_tokens.len() {
        return None;
    }
    let edit = Edit::between(main, &old.text, &file.text);
    let mut m = Move::new(edit);
    for (o, n) in old_tokens.iter().zip(new_tokens.iter()) {
        let mut span = o.span;
        m.span(&mut span);
        let same = o.kind == n.kind
            && o.text == n.text
            && span == n.span
            && n.spelling == n.span
            && o.line_start == n.line_start
            && o.leading_space == n.leading_space;
        if !same {
            return None;
        }
    }
    if m.lost || in_directive_line(&old_tokens, &edit) || in_macro_call(previous, &edit) {
        return None;
    }
    let newlines = |t: &str, r: std::ops::Range<usize>| t[r].matches('\n').count();
    let lines_moved = newlines(&old.text, edit.from as usize..edit.to as usize)
        != newlines(&file.text, edit.new_range());
    if lines_moved && line_after(previous, &edit) {
        return None;
    }
    let mut unit = previous.clone();
    unit.reparsed = None;
    unit.preprocessed_edited = false;
    unit.preprocessed.main_tokens = new_tokens;
    unit.sources.replace(main, file);
    unit.preprocessed.move_spans(&mut m);
    unit.ast.move_spans(&mut m);
    unit.hir.move_spans(&mut m);
    unit.diagnostics.move_spans(&mut m);
    unit.checks.move_spans(&mut m);
    (!m.lost).then_some(unit)
}

/// True when the edit is inside a macro invocation of the main file. The
/// tokens of an expansion carry the invocation's span, which can reach past
/// the item that holds them (an unbalanced `(` in the arguments collects
/// tokens up to a `)` far below), so the items the edit does not touch
/// could still hold a span it moves.
fn in_macro_call(unit: &CheckedUnit, edit: &Edit) -> bool {
    unit.preprocessed.expansions.iter().any(|x| {
        let c = x.call_site;
        c.file == edit.file && c.start < edit.to && c.end > edit.from
    })
}

/// True when `__LINE__` is expanded at or after the edit (where it stands
/// in the main text: the outermost invocation that produced it).
fn line_after(unit: &CheckedUnit, edit: &Edit) -> bool {
    crate::preprocess::line_expanded_after(&unit.preprocessed, edit)
}

/// True when the edited text is inside a directive line, between two of its
/// tokens (some directives read the text there: `#error`, `#include <...>`).
pub(crate) fn in_directive_line(tokens: &[Token], edit: &Edit) -> bool {
    let next = tokens.partition_point(|t| t.span.start < edit.to);
    if tokens.get(next).is_none_or(|t| t.line_start) {
        return false;
    }
    let first = tokens[..next].iter().rposition(|t| t.line_start);
    first.is_some_and(|i| tokens[i].kind == TokenKind::Hash)
}

fn check_in(
    mut sources: SourceMap,
    main: FileId,
    options: &PreprocessOptions,
    loader: &dyn FileLoader,
    memo: Option<&mut LexMemo>,
    previous: Option<(&CheckedUnit, Edit)>,
) -> CheckedUnit {
    let mut diagnostics = Vec::new();
    let preprocessed = match memo {
        Some(memo) => preprocess::preprocess_reusing(
            &mut sources,
            main,
            options,
            loader,
            &mut diagnostics,
            memo,
        ),
        None => preprocess::preprocess(&mut sources, main, options, loader, &mut diagnostics),
    };
    let previous = previous.map(|(p, e)| (p, e, SameEnds::default()));
    check_preprocessed(sources, main, preprocessed, diagnostics, previous)
}

/// Parsing and checking after preprocessing; see [`check_in`].
fn check_preprocessed(
    sources: SourceMap,
    main: FileId,
    preprocessed: Preprocessed,
    mut diagnostics: Vec<Diagnostic>,
    previous: Option<(&CheckedUnit, Edit, SameEnds)>,
) -> CheckedUnit {
    let reparsed = previous.and_then(|(p, edit, same)| {
        let old = (&p.ast, &p.file_scope, &p.preprocessed.tokens[..]);
        let (ast, scope, k) =
            crate::reparse::reparse_function(old, &preprocessed.tokens, edit, same)?;
        Some((p, edit, ast, scope, k))
    });
    let reparsed_item = reparsed.as_ref().map(|r| r.4);
    let first = diagnostics.len() as u32;
    let (ast, file_scope, mut hir, mut checks) = match reparsed {
        Some((p, edit, ast, scope, k)) => match check_function_again(p, edit, &ast, k) {
            Some((hir, checks, diags)) => {
                diagnostics.extend(diags);
                (ast, scope, hir, checks)
            }
            None => {
                let (hir, checks) = crate::sema::check_recording(&ast, &mut diagnostics);
                (ast, scope, hir, checks)
            }
        },
        None => {
            let (ast, scope) =
                crate::parser::parse_recording(&preprocessed.tokens, &mut diagnostics);
            let (hir, checks) = crate::sema::check_recording(&ast, &mut diagnostics);
            (ast, scope, hir, checks)
        }
    };
    checks.first = first;
    hir.fp_contract_off = crate::fp_contract::off_regions(
        &preprocessed.tokens,
        &preprocessed.pragmas,
        &mut diagnostics,
    );
    hir.loop_hints = crate::loop_pragma::loop_hints(
        &preprocessed.tokens,
        &preprocessed.pragmas,
        &mut diagnostics,
    );
    CheckedUnit {
        sources,
        main,
        preprocessed,
        ast,
        hir,
        diagnostics,
        file_scope,
        checks,
        reparsed: reparsed_item,
        preprocessed_edited: false,
    }
}

/// Checking again only the function definition `ast.items[k]` (parsed
/// again after `edit` of `previous`'s main file), when the edit is strictly
/// inside its body: [`crate::sema::check_function_again`] with the
/// previous unit's checking diagnostics.
pub(crate) fn check_function_again(
    previous: &CheckedUnit,
    edit: Edit,
    ast: &TranslationUnit,
    k: usize,
) -> Option<(hir::Unit, Checks, Vec<crate::diag::Diagnostic>)> {
    let ast::ItemKind::Function(f) = &previous.ast.items.get(k)?.kind else {
        return None;
    };
    let body = f.body.as_ref()?.span;
    if body.file != edit.file || edit.from <= body.start || edit.to >= body.end {
        return None;
    }
    let checks = &previous.checks;
    let first = checks.first as usize;
    let n: usize = checks
        .items
        .iter()
        .map(|i| i.diagnostics as usize)
        .sum::<usize>()
        + checks.finish as usize;
    let diags = previous.diagnostics.get(first..first + n)?;
    let mut m = Move::new(edit);
    crate::sema::check_function_again(ast, k, (&previous.hir, checks, diags), &mut m)
}
