//! Terminal output in the style of rustc: `error[L0003]: message`, then
//! `--> file:line:col`, the source line with carets, related labels and notes.

use codespan_reporting::diagnostic::{self as cs, LabelStyle};
use codespan_reporting::files::{self, Files};
use codespan_reporting::term::{self, Chars, Config};
use lanes_frontend::diag::{Diagnostic, Severity};
use lanes_frontend::source::{FileId, SourceMap};

pub use codespan_reporting::term::termcolor;

/// Adapter so codespan-reporting can read our source map.
pub struct SourceFiles<'a>(pub &'a SourceMap);

impl<'a> Files<'a> for SourceFiles<'a> {
    type FileId = FileId;
    type Name = &'a str;
    type Source = &'a str;

    fn name(&'a self, id: FileId) -> Result<&'a str, files::Error> {
        self.check(id)?;
        Ok(&self.0.get(id).name)
    }

    fn source(&'a self, id: FileId) -> Result<&'a str, files::Error> {
        self.check(id)?;
        Ok(&self.0.get(id).text)
    }

    fn line_index(&'a self, id: FileId, byte_index: usize) -> Result<usize, files::Error> {
        self.check(id)?;
        Ok(self.0.get(id).line_index(byte_index as u32))
    }

    fn line_range(
        &'a self,
        id: FileId,
        line_index: usize,
    ) -> Result<std::ops::Range<usize>, files::Error> {
        self.check(id)?;
        let f = self.0.get(id);
        if line_index >= f.line_count() {
            return Err(files::Error::LineTooLarge {
                given: line_index,
                max: f.line_count() - 1,
            });
        }
        // codespan expects the range to include the line terminator.
        let r = f.line_range(line_index);
        let end = if line_index + 1 < f.line_count() {
            f.line_range(line_index + 1).start
        } else {
            f.text.len()
        };
        Ok(r.start..end)
    }
}

impl SourceFiles<'_> {
    fn check(&self, id: FileId) -> Result<(), files::Error> {
        if (id.0 as usize) < self.0.len() {
            Ok(())
        } else {
            Err(files::Error::FileMissing)
        }
    }
}

fn to_codespan(d: &Diagnostic) -> cs::Diagnostic<FileId> {
    let severity = match d.severity {
        Severity::Error => cs::Severity::Error,
        Severity::Warning => cs::Severity::Warning,
        Severity::Info => cs::Severity::Note,
        Severity::Hint => cs::Severity::Help,
    };
    let mut labels = vec![cs::Label::new(
        LabelStyle::Primary,
        d.span.file,
        d.span.start as usize..d.span.end as usize,
    )
    .with_message(d.label.clone())];
    for r in &d.related {
        labels.push(
            cs::Label::new(
                LabelStyle::Secondary,
                r.span.file,
                r.span.start as usize..r.span.end as usize,
            )
            .with_message(r.message.clone()),
        );
    }
    cs::Diagnostic::new(severity)
        .with_code(d.code.as_str())
        .with_message(d.message.clone())
        .with_labels(labels)
        .with_notes(d.notes.clone())
}

fn config() -> Config {
    Config {
        chars: Chars::ascii(),
        ..Config::default()
    }
}

/// Writes diagnostics to a (possibly coloured) terminal stream.
pub fn emit(
    out: &mut dyn termcolor::WriteColor,
    sources: &SourceMap,
    diags: &[Diagnostic],
) -> std::io::Result<()> {
    let files = SourceFiles(sources);
    let config = config();
    for d in crate::sorted(diags) {
        term::emit_to_write_style(out, &config, &files, &to_codespan(d))
            .map_err(std::io::Error::other)?;
    }
    Ok(())
}

/// Renders diagnostics without colour, e.g. for tests and logs.
pub fn render(sources: &SourceMap, diags: &[Diagnostic]) -> String {
    let mut buf = termcolor::NoColor::new(Vec::new());
    // Writing into memory cannot fail except on a bug in the adapter, which
    // then shows up as missing output rather than a crash.
    let _ = emit(&mut buf, sources, diags);
    String::from_utf8_lossy(&buf.into_inner()).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use lanes_frontend::diag::Code;
    use lanes_frontend::source::{SourceFile, Span};

    #[test]
    fn rustc_style_with_related_and_note() {
        let mut sm = SourceMap::new();
        let f = sm.add(SourceFile::new(
            "k.cl",
            None,
            "int width;\nint y = wdth + 1;\n",
        ));
        let d = Diagnostic::new(
            Code::Undeclared,
            Span::new(f, 19, 23),
            "use of undeclared identifier `wdth`",
        )
        .with_label("not found in this scope")
        .with_related(Span::new(f, 4, 9), "`width` is declared here")
        .with_note("did you mean `width`?");
        let out = render(&sm, &[d]);
        assert!(
            out.starts_with("error[L0003]: use of undeclared identifier `wdth`\n"),
            "{out}"
        );
        assert!(out.contains("--> k.cl:2:9"), "{out}");
        assert!(out.contains("2 | int y = wdth + 1;"), "{out}");
        assert!(out.contains("^^^^ not found in this scope"), "{out}");
        assert!(out.contains("----- `width` is declared here"), "{out}");
        assert!(out.contains("= did you mean `width`?"), "{out}");
    }
}
