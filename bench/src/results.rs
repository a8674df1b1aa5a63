//! bench/RESULTS.md: each benchmark owns one `## ` section and rewrites
//! only that one.

/// `text` with the section that starts with `section`'s first line (its
/// `## ` heading) replaced by `section`, or `section` appended; the other
/// sections stay as they are.
pub fn splice(text: &str, section: &str) -> String {
    let head = section.lines().next().unwrap_or_default();
    let found = if text.starts_with(&format!("{head}\n")) {
        Some(0)
    } else {
        text.find(&format!("\n{head}\n")).map(|i| i + 1)
    };
    match found {
        Some(start) => {
            let after = &text[start + head.len()..];
            let end = after
                .find("\n## ")
                .map(|e| start + head.len() + e + 1)
                .unwrap_or(text.len());
            let gap = if end < text.len() { "\n" } else { "" };
            format!("{}{section}{gap}{}", &text[..start], &text[end..])
        }
        None => format!("{}\n\n{section}", text.trim_end_matches('\n')),
    }
}
