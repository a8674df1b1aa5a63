//! Preprocessing again only the lines an edit of the main file changed.
//!
//! An edit that cannot change the preprocessor's state leaves every output
//! token outside the edited lines as it was (moved by the edit), and the
//! edited lines' new tokens come out as they were lexed. That holds when
//! (decided conservatively; otherwise the caller preprocesses the whole
//! file):
//!
//! - the edited lines are whole logical lines of both texts, none of them a
//!   directive, and the edit is not between two tokens of a directive line;
//! - no token of the edited lines, old or new, is an identifier that names
//!   a macro anywhere in the unit (every name `#define`d in any file, the
//!   predefined and command-line ones) or is `defined`, `__LINE__`,
//!   `__FILE__`, `__COUNTER__`, `_Pragma`, `__VA_ARGS__` or `__VA_OPT__`,
//!   and none is an invalid token (which is reported);
//! - the old edited tokens came out of the old run one for one, as they
//!   were lexed (so they were in active text and not a macro invocation's
//!   arguments), and so did the token just before them, which names no
//!   macro either (so no invocation was open at them or could take them as
//!   its arguments: a function-like macro's name looks at the next token);
//! - the number of lines before a `__LINE__` expansion did not change;
//! - the main file is not included by itself.
//!
//! Then the preprocessor reaches the edited lines with the same state
//! (macros, conditionals, no open invocation, no pending whitespace), emits
//! their tokens unchanged, and leaves them with the state it had before
//! them; everything after them is the old output with its spans moved. The
//! caller also requires the same options and headers, no diagnostic of the
//! previous lexing and preprocessing and none of the new lexing.

use std::sync::Arc;

use crate::lexer::{Token, TokenKind};
use crate::moved::{is_moved_token, Edit, Move, MoveSpans};
use crate::source::FileId;

use super::Preprocessed;

/// Identifiers the preprocessor treats specially without a `#define`.
const SPECIAL: &[&str] = &[
    "defined",
    "__LINE__",
    "__FILE__",
    "__COUNTER__",
    "_Pragma",
    "__VA_ARGS__",
    "__VA_OPT__",
];

/// The preprocessed tokens of the main file after `edit`, from `previous`
/// (the output for the old text) and `new_main` (the new text lexed), when
/// the edit cannot change the preprocessor's state (see the module
/// comment); `lines_moved` tells whether it changed the number of lines.
/// With them, which output tokens are known to be the old ones
/// ([`SameEnds`]).
pub fn preprocess_edited(
    previous: &Preprocessed,
    main: FileId,
    edit: Edit,
    lines_moved: bool,
    new_main: &Arc<[Token]>,
) -> Option<(Preprocessed, SameEnds)> {
    let old = &previous.main_tokens[..];
    let new = &new_main[..];
    // The edit's end in the new text.
    let new_side = Edit {
        to: edit.new_range().end as u32,
        ..edit
    };
    if edit.file != main
        || old.is_empty()
        || previous.includes.iter().any(|&(_, f)| f == main)
        || (lines_moved && line_expanded_after(previous, &edit))
        || crate::unit::in_directive_line(old, &edit)
        || crate::unit::in_directive_line(new, &new_side)
    {
        return None;
    }
    // The tokens that differ, as in `reparse`: the longest common prefix,
    // then the longest common suffix (moved by the edit).
    let same = |o: &Token, n: &Token| is_moved_token(edit, o, n);
    let room = old.len().min(new.len());
    // (Only tokens before the edit: the output before the edited lines is
    // kept as it is, not moved.)
    let before_edit = old.partition_point(|t| t.span.end <= edit.from);
    let prefix = old
        .iter()
        .zip(new)
        .take(before_edit)
        .take_while(|(o, n)| same(o, n))
        .count();
    let suffix = old
        .iter()
        .rev()
        .zip(new.iter().rev())
        .take(room - prefix)
        .take_while(|(o, n)| same(o, n))
        .count();
    // Widened to whole logical lines of both texts.
    let starts_both = |i: usize| {
        old.get(i).is_some_and(|t| t.line_start) && new.get(i).is_some_and(|t| t.line_start)
    };
    let a = if starts_both(prefix) {
        prefix
    } else {
        old[..prefix.min(old.len())]
            .iter()
            .rposition(|t| t.line_start)?
    };
    let b_old = (old.len() - suffix..old.len())
        .find(|&i| old[i].line_start)
        .unwrap_or(old.len());
    let b_new = b_old + new.len() - old.len();
    if a == 0 || a > b_old.min(b_new) {
        return None;
    }
    let names = &previous.macro_names;
    let plain = |t: &Token| {
        !(t.kind == TokenKind::Hash && t.line_start)
            && t.kind != TokenKind::Unknown
            && t.kind != TokenKind::Eof
            && !(t.kind == TokenKind::Ident
                && (SPECIAL.contains(&t.text.as_str()) || names.binary_search(&t.text).is_ok()))
    };
    let before = &old[a - 1];
    if !old[a - 1..b_old].iter().all(plain) || !new[a..b_new].iter().all(plain) {
        return None;
    }
    // Where the token before the edited lines came out, as lexed.
    let out = &previous.tokens;
    let j0 = 1 + out
        .iter()
        .position(|t| t.span == before.span && t.expansion.is_none())?;
    let emitted = |o: &Token, t: &Token| t == o;
    if !emitted(before, &out[j0 - 1]) {
        return None;
    }
    let j1 = j0 + (b_old - a);
    let old_lines = out.get(j0..j1)?;
    if !old[a..b_old]
        .iter()
        .zip(old_lines)
        .all(|(o, t)| emitted(o, t))
    {
        return None;
    }
    if out.len() + new.len() >= super::MAX_OUTPUT_TOKENS + old.len() {
        return None;
    }
    let mut m = Move::new(edit);
    let mut tokens = Vec::with_capacity(out.len() + b_new - a);
    tokens.extend_from_slice(&out[..j0]);
    tokens.extend_from_slice(&new[a..b_new]);
    let moved_from = tokens.len();
    tokens.extend_from_slice(&out[j1..]);
    for t in &mut tokens[moved_from..] {
        t.move_spans(&mut m);
    }
    let mut expansions = previous.expansions.clone();
    expansions.move_spans(&mut m);
    let mut includes = previous.includes.clone();
    includes.move_spans(&mut m);
    let mut pragmas = previous.pragmas.clone();
    pragmas.move_spans(&mut m);
    for p in &mut pragmas {
        if p.token >= j1 {
            p.token = p.token + moved_from - j1;
        }
    }
    let same = SameEnds {
        prefix: j0,
        suffix: out.len() - j1,
    };
    let tokens = Preprocessed {
        tokens,
        expansions,
        pragmas,
        includes,
        main_tokens: new_main.clone(),
        macro_names: previous.macro_names.clone(),
    };
    (!m.lost).then_some((tokens, same))
}

/// Output tokens [`preprocess_edited`] took from the previous output: the
/// first `prefix` as they were (they end before the edit), the last
/// `suffix` moved by the edit. The parser's comparison of the two token
/// streams ([`crate::reparse::reparse_function`]) starts after them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SameEnds {
    pub prefix: usize,
    pub suffix: usize,
}

/// True when `__LINE__` is expanded at or after the edit (where it stands
/// in the main text: the outermost invocation that expanded it).
pub(crate) fn line_expanded_after(pp: &Preprocessed, edit: &Edit) -> bool {
    let expansions = &pp.expansions;
    (0..expansions.len())
        .filter(|&i| expansions[i].macro_name == "__LINE__")
        .any(|mut i| {
            // Parents come before their children.
            while let Some(p) = expansions[i]
                .parent
                .map(|p| p.0 as usize)
                .filter(|&p| p < i)
            {
                i = p;
            }
            let site = expansions[i].call_site;
            site.file == edit.file && site.end > edit.from
        })
}
