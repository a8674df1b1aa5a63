//! Parsing again only the function definition an edit was inside.
//!
//! After an edit of the main file, the preprocessor's tokens are compared
//! with the previous unit's: when every token outside one function
//! definition is the old one (moved by the edit), and the old parse
//! reported nothing, the parser's state at that definition's first token is
//! what the earlier items declared at file scope ([`FileScope`]) and the
//! node id after the previous item. The definition is parsed alone from
//! there; the other items are the old ones with their spans moved. The
//! result is exactly what parsing the whole stream gives, as long as the
//! definition parses without a diagnostic, declares the same names at file
//! scope and numbers as many nodes as before (so later items keep their
//! ids); otherwise the caller parses the whole stream.

use crate::ast::{ItemKind, TranslationUnit};
use crate::lexer::Token;
use crate::moved::{is_moved_token, Edit, Pending};
use crate::parser::{self, FileScope};
use crate::preprocess::SameEnds;

/// The syntax tree of `tokens`, the preprocessed tokens of `previous`'s
/// main file after `edit`, from `previous`'s tree and file scope when the
/// edit stayed inside one function definition (see the module comment),
/// and that definition's index among the items. `known` tells how many
/// tokens at either end are known to be the old ones (the preprocessor
/// took them from the old output): they are not compared again.
pub fn reparse_function(
    previous: (&TranslationUnit, &FileScope, &[Token]),
    tokens: &[Token],
    edit: Edit,
    known: SameEnds,
) -> Option<(TranslationUnit, FileScope, usize)> {
    let (ast, scope, old) = previous;
    if !scope.clean {
        return None;
    }
    // The item the edit is inside: a function definition of the main
    // file, its first and last bytes untouched.
    let k = ast.items.iter().position(|i| {
        let s = i.span();
        s.file == edit.file && s.start < edit.from && edit.to < s.end
    })?;
    let item = &ast.items[k];
    let ItemKind::Function(f) = &item.kind else {
        return None;
    };
    f.body.as_ref()?;
    let starts_at = |from: usize, s: crate::source::Span| {
        (from..old.len()).find(|&i| old[i].span.file == s.file && old[i].span.start == s.start)
    };
    let a = starts_at(0, item.span())?;
    let b_old = match ast.items.get(k + 1) {
        Some(next) => starts_at(a + 1, next.span())?,
        // Up to the final `Eof`.
        None => old.len().checked_sub(1)?,
    };
    // Every token before the item and from its last one on is the old one.
    let same = |o: &Token, n: &Token| is_moved_token(edit, o, n);
    let room = old.len().min(tokens.len());
    let (p0, s0) = (known.prefix.min(room), known.suffix);
    let s0 = s0.min(room - p0);
    let prefix = p0
        + old[p0..]
            .iter()
            .zip(&tokens[p0..])
            .take(room - p0 - s0)
            .take_while(|(o, n)| same(o, n))
            .count();
    let suffix = s0
        + old[..old.len() - s0]
            .iter()
            .rev()
            .zip(tokens[..tokens.len() - s0].iter().rev())
            .take(room - prefix - s0)
            .take_while(|(o, n)| same(o, n))
            .count();
    if prefix <= a || old.len() - suffix >= b_old {
        return None;
    }
    let b_new = b_old + tokens.len() - old.len();
    let earlier = scope
        .decls
        .iter()
        .filter(|d| (d.0 as usize) < k)
        .map(|d| (&d.1, d.2));
    let first_id = match k {
        0 => 0,
        _ => ast.items[k - 1].unmoved().id.0 + 1,
    };
    let (mut items, decls, _) = parser::parse_items_after(&tokens[a..b_new], earlier, first_id)?;
    let mut new_item = match items.pop() {
        Some(i) if items.is_empty() => Some(i),
        _ => return None,
    };
    let g = new_item.as_ref()?;
    let new_id = g.id;
    let ItemKind::Function(g) = &g.kind else {
        return None;
    };
    let old_decls = scope.decls.iter().filter(|d| d.0 as usize == k);
    let same_decls = old_decls
        .map(|d| (&d.1, d.2))
        .eq(decls.iter().map(|d| (&d.1, d.2)));
    if g.body.is_none() || new_id != item.id || !same_decls {
        return None;
    }
    let mut unit = TranslationUnit {
        items: Vec::with_capacity(ast.items.len()),
        node_count: ast.node_count,
    };
    // The items before the edited one are shared: their tokens precede its
    // first token, which is before the edit, so no span of theirs moves.
    unit.items.extend(ast.items[..k].iter().cloned());
    unit.items.extend(new_item.take().map(Pending::new));
    // Those after it lie wholly after the edit: each keeps its `Arc`, the
    // edit pending (moved only if read).
    for old_item in &ast.items[k + 1..] {
        unit.items.push(match edit.delta {
            0 => old_item.clone(),
            _ => old_item.moved_by(edit),
        });
    }
    Some((unit, scope.clone(), k))
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;
    use std::sync::Arc;

    use crate::moved::Pending;

    use proptest::prelude::*;

    use crate::lexer::LexMemo;
    use crate::preprocess::{PreprocessOptions, RealFs};
    use crate::source::SourceFile;
    use crate::unit::{check_source, check_source_reparsing, CheckedUnit};

    const FILE: &str = "\
#define SQUARE(x) ((x) * (x))
#define BLOCK 16
typedef float real;
typedef struct { float x; float y; } Point;
int undefined_fn(int);

inline real dist2(Point a, Point b)
{
    return SQUARE(a.x - b.x) + SQUARE(a.y - b.y);
}

__kernel void nearest(__global const Point *pts, __global float *out, int n)
{
    int i = get_global_id(0);
    real best = 1e30f;
    for (int j = 0; j < n; ++j) {
        real d = dist2(pts[i], pts[j]);
        if (d < best && j != i)
            best = d;
    }
    out[i] = best;
}

typedef int count;

__kernel void scale(__global float *a, float s)
{
    __local float tile[BLOCK];
    count l = get_local_id(0);
    tile[l] = a[get_global_id(0)] * s;
    barrier(CLK_LOCAL_MEM_FENCE);
    a[get_global_id(0)] = tile[BLOCK - 1 - l] + __LINE__;
}

__kernel void sum(__global int *p, int n)
{
    int acc = 0;
    for (int k = 0; k < n; k++)
        acc += p[k] * 2;
    p[0] = acc;
}

inline real dist2(Point a, Point b);
";

    /// Edits: what typing inside a body does (digits, names, operators,
    /// whole statements), and some that reach out of it (braces, comment
    /// openers, directives, typedefs, a name that is a typedef or macro).
    const PIECES: &[&str] = &[
        "1",
        "7",
        "x",
        "n",
        "i",
        "+",
        "*",
        " ",
        "\n",
        ";",
        "{",
        "}",
        "(",
        "/*",
        "// c\n",
        "int t = 3;\n",
        "real r = 2.0f;\n",
        "count",
        "real",
        "typedef int real;\n",
        "#define Q 1\n",
        "Q",
        "SQUARE(2)",
        "__LINE__",
        "#if 0\n",
        "#endif\n",
        // What checking a body can add to the file's tables or report
        // across items: a struct, a call that recurses, a call of a
        // function never defined, an undeclared name.
        "struct T { int a; } tv;\n",
        "sum(p, n);",
        "scale(0, 1.0f);",
        "undefined_fn(1);",
        "nearest",
        "__constant int cc = 2;\n",
        // What could change the preprocessor's state (which the lines an
        // edit changed are then not preprocessed alone): macro names, an
        // invocation's parenthesis, a continuation, `#undef`, `_Pragma`,
        // `defined`.
        "BLOCK",
        "SQUARE",
        ")",
        ",",
        "\\\n",
        "#undef BLOCK\n",
        "_Pragma(\"unroll\")",
        "defined",
        "#",
        // A macro whose expansion ends in a function-like macro's name,
        // which then takes a `(` of the text after it.
        "#define H() SQUARE\n",
        "H()",
    ];

    fn file(text: &str) -> SourceFile {
        SourceFile::new("k.cl", Some(PathBuf::from("k.cl")), Arc::<str>::from(text))
    }

    /// Everything a checked unit holds, as text.
    fn dump(u: &CheckedUnit) -> String {
        let texts: Vec<_> = u.sources.files().map(|(_, f)| (&f.name, &f.text)).collect();
        format!(
            "{texts:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{:?}",
            u.preprocessed, u.ast, u.hir, u.diagnostics, u.file_scope, u.checks
        )
    }

    /// Applies the edits in turn, each to the previous unit; returns how
    /// many parsed one function again and how many of those checked only it
    /// again. Every unit must equal a fresh check.
    fn run_counting(edits: &[(usize, usize, String)]) -> (usize, usize) {
        run_on(FILE, edits)
    }

    fn run_on(base: &str, edits: &[(usize, usize, String)]) -> (usize, usize) {
        run_all(base, edits).0
    }

    /// [`run_on`], also counting the edits whose lines alone were
    /// preprocessed again.
    fn run_all(base: &str, edits: &[(usize, usize, String)]) -> ((usize, usize), usize) {
        let opts = PreprocessOptions::default();
        let mut memo = LexMemo::default();
        let mut text = base.to_string();
        let mut unit = check_source(file(&text), &opts, &RealFs);
        let mut reparsed = 0;
        let mut checked_alone = 0;
        let mut preprocessed_alone = 0;
        for (at, len, insert) in edits {
            let mut at = (*at).min(text.len());
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            let end = (at + len).min(text.len());
            text.replace_range(at..end, insert);
            let fresh = check_source(file(&text), &opts, &RealFs);
            let edit =
                crate::moved::Edit::between(unit.main, &unit.sources.get(unit.main).text, &text);
            let old = (&unit.ast, &unit.file_scope, &unit.preprocessed.tokens[..]);
            if let Some((ast, _, k)) =
                super::reparse_function(old, &fresh.preprocessed.tokens, edit, Default::default())
            {
                reparsed += 1;
                if crate::unit::check_function_again(&unit, edit, &ast, k).is_some() {
                    checked_alone += 1;
                }
            }
            let next = check_source_reparsing(file(&text), &opts, &RealFs, &mut memo, &unit, true);
            assert_eq!(dump(&next), dump(&fresh), "{text}");
            preprocessed_alone += next.preprocessed_edited as usize;
            unit = next;
        }
        ((reparsed, checked_alone), preprocessed_alone)
    }

    fn run(edits: &[(usize, usize, String)]) -> usize {
        run_counting(edits).0
    }

    fn edits() -> impl Strategy<Value = Vec<(usize, usize, String)>> {
        let insert = proptest::collection::vec(proptest::sample::select(PIECES), 0..3)
            .prop_map(|v| v.concat());
        proptest::collection::vec((0usize..FILE.len() + 8, 0usize..4, insert), 1..12)
    }

    proptest::proptest! {
        /// Whatever the edits, the unit after each is exactly the unit of
        /// checking the new text from scratch.
        #[test]
        fn reparsed_unit_equals_checking_again(edits in edits()) {
            run(&edits);
        }
    }

    #[test]
    fn edits_inside_a_body_parse_it_alone() {
        let at = |s: &str| FILE.find(s).unwrap();
        let edits = [
            // A digit, a name, an operator: as many nodes as before.
            (at("* 2;") + 2, 1, "3".to_string()),
            (at("acc = 0;") + 1, 0, "x".to_string()),
            (at("j < n;") + 2, 1, ">".to_string()),
            // Inside the first and the last function, a typedef name used.
            (at("a.x - b.x") + 2, 1, "y".to_string()),
            (at("count l ="), 5, "int  ".to_string()),
        ];
        for e in &edits {
            assert_eq!(run_counting(std::slice::from_ref(e)), (1, 1), "{e:?}");
        }
    }

    /// After an edit inside one body, the items before it and the
    /// functions with no span after the edit are shared with the previous
    /// unit (not copied); the others are new. (`dist2`, declared again
    /// after the edit, keeps its definition's places.)
    #[test]
    fn unmoved_items_and_functions_are_shared() {
        let opts = PreprocessOptions::default();
        let mut memo = LexMemo::default();
        let unit = check_source(file(FILE), &opts, &RealFs);
        for (site, skip, typed) in [("1e30f", 0, "1"), ("* 2;", 2, "12"), ("acc = 0;", 5, "")] {
            let at = FILE.find(site).unwrap() + skip;
            let text = match typed {
                "" => format!("{}{}", &FILE[..at], &FILE[at + 1..]),
                _ => format!("{}{typed}{}", &FILE[..at], &FILE[at..]),
            };
            let next = check_source_reparsing(file(&text), &opts, &RealFs, &mut memo, &unit, true);
            let k = next.reparsed.expect("one function parsed again");
            let fresh = check_source(file(&text), &opts, &RealFs);
            assert_eq!(dump(&next), dump(&fresh));
            // Items before the edited one are the same; after it, the same
            // values with the edit pending (not copied); the edited one new.
            let pairs = || unit.ast.items.iter().zip(&next.ast.items);
            let same: Vec<bool> = pairs().map(|(a, b)| Pending::same(a, b)).collect();
            let shares: Vec<bool> = pairs().map(|(a, b)| Pending::shares(a, b)).collect();
            assert!(same[..k].iter().all(|&s| s), "{site}: {same:?}");
            assert!(!same[k..].iter().any(|&s| s), "{site}: {same:?}");
            assert!(!shares[k], "{site}: {shares:?}");
            assert!(shares[k + 1..].iter().all(|&s| s), "{site}: {shares:?}");
            let function = |u: &CheckedUnit, name: &str| {
                let id = unit.hir.function_by_name(name).unwrap().0 as usize;
                u.hir.functions[id].clone()
            };
            let same = |name: &str| Pending::same(&function(&unit, name), &function(&next, name));
            let shares =
                |name: &str| Pending::shares(&function(&unit, name), &function(&next, name));
            let in_sum = site != "1e30f";
            assert!(same("dist2"), "{site}");
            assert_eq!(same("nearest"), in_sum, "{site}");
            assert_eq!(same("scale"), in_sum, "{site}");
            // The function holding the edit (`nearest` at `1e30f`, else
            // `sum`) is new; those after it share their values, moved later.
            assert_eq!(shares("nearest"), in_sum, "{site}");
            assert!(shares("scale"), "{site}");
            assert_eq!(shares("sum"), !in_sum, "{site}");
        }
    }

    #[test]
    fn edits_that_keep_the_macro_state_preprocess_their_lines_alone() {
        let at = |s: &str| FILE.find(s).unwrap();
        let alone = |pos: usize, len: usize, insert: &str| {
            run_all(FILE, &[(pos, len, insert.to_string())]).1 == 1
        };
        // Typed and deleted digits, names and operators, a new statement,
        // a new line, a syntax error: the lines alone.
        assert!(alone(at("* 2;") + 2, 0, "1"));
        assert!(alone(at("* 2;") + 2, 1, ""));
        assert!(alone(at("acc = 0;"), 0, "x"));
        assert!(alone(at("p[0] = acc;"), 0, "acc++;\n    "));
        assert!(alone(at("int acc"), 0, "+"));
        assert!(alone(at("real best"), 0, "count"));
        // A macro's name typed or deleted, an edit inside an invocation's
        // arguments or a `#define` line, `__LINE__` after a new line,
        // `defined`, `_Pragma`: the whole file.
        assert!(!alone(at("* 2;"), 0, "BLOCK "));
        assert!(!alone(at("tile[BLOCK - 1") + 6, 5, "8"));
        assert!(!alone(at("a.x - b.x"), 0, "1 + "));
        assert!(!alone(at("((x) * (x))"), 0, " "));
        assert!(!alone(at("int i = get_global_id"), 0, "\n"));
        assert!(!alone(at("* 2;"), 0, "defined "));
        assert!(!alone(at("* 2;"), 0, "_Pragma(\"x\") "));
        assert!(!alone(at("* 2;"), 0, "SQUARE "));
        // A continuation inside a line of code, a new line after
        // `__LINE__`: the lines alone.
        assert!(alone(at("* 2;"), 0, "\\\n "));
        assert!(alone(at("p[0] = acc;"), 0, "\n"));
    }

    #[test]
    fn a_body_that_adds_to_the_tables_checks_the_whole_file() {
        // A struct defined inside a body takes the next struct id, so a
        // body before it cannot be checked alone.
        let at = FILE.find("int acc = 0;").unwrap();
        let base = format!("{}struct T {{ int a; }} tv;\n{}", &FILE[..at], &FILE[at..]);
        let digit = base.find("* 2;").unwrap() + 2;
        assert_eq!(run_on(&base, &[(digit, 1, "3".to_string())]), (1, 0));
    }

    #[test]
    fn other_edits_parse_everything() {
        let at = |s: &str| FILE.find(s).unwrap();
        for (pos, len, insert) in [
            // A new statement (more nodes), a body's brace, a syntax
            // error, a declaration between items, a function's name.
            (at("p[0] = acc;"), 0, "acc++;"),
            (at("{\n    int acc"), 1, ""),
            (at("acc = 0;"), 0, "+"),
            (at("__kernel void sum"), 0, "typedef int t2;\n"),
            (at("sum(__global"), 1, "S"),
        ] {
            assert_eq!(run(&[(pos, len, insert.to_string())]), 0, "{insert:?}");
        }
    }
}
