//! One compilation unit through the whole front end: read, preprocess, parse,
//! check. This is what `lanes check` and the later stages call.

use std::path::{Path, PathBuf};

use crate::ast::TranslationUnit;
use crate::diag::Diagnostic;
use crate::hir;
use crate::lexer::LexMemo;
use crate::preprocess::{self, FileLoader, PreprocessOptions, Preprocessed};
use crate::source::{FileId, SourceFile, SourceMap};

/// Everything the front end knows about one main file.
#[derive(Default)]
pub struct CheckedUnit {
    pub sources: SourceMap,
    pub main: FileId,
    pub preprocessed: Preprocessed,
    pub ast: TranslationUnit,
    pub hir: hir::Unit,
    /// All diagnostics of all stages, in the order they were found.
    pub diagnostics: Vec<Diagnostic>,
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
    check_in(sources, main, options, loader, None)
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
    check_in(sources, main, options, loader, Some(memo))
}

fn check_in(
    mut sources: SourceMap,
    main: FileId,
    options: &PreprocessOptions,
    loader: &dyn FileLoader,
    memo: Option<&mut LexMemo>,
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
    let ast = crate::parser::parse(&preprocessed.tokens, &mut diagnostics);
    let mut hir = crate::sema::check(&ast, &mut diagnostics);
    hir.fp_contract_off = crate::fp_contract::off_regions(
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
    }
}
