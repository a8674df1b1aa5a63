//! The two sources of settings, `lanes.toml` (TOML, with byte spans) and
//! the editor's JSON, read into one tree, so that one validator
//! ([`crate::settings`]) gives both the same errors.

use std::ops::Range;

/// A value and where it is in `lanes.toml` (`None` for the editor's JSON).
#[derive(Clone, Debug)]
pub struct Node {
    pub value: Value,
    pub at: Option<Range<usize>>,
}

#[derive(Clone, Debug)]
pub enum Value {
    Str(String),
    Int(i64),
    Float,
    Bool(bool),
    Array(Vec<Node>),
    /// Keys in source order, each with its own position.
    Table(Vec<(String, Option<Range<usize>>, Node)>),
    /// Anything the settings never take (a TOML date, JSON `null`, an
    /// integer beyond 64 bits), named for error messages.
    Other(&'static str),
}

impl Value {
    /// What the value is, as error messages say it.
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Str(_) => "a string",
            Value::Int(_) => "an integer",
            Value::Float => "a floating-point number",
            Value::Bool(_) => "a boolean",
            Value::Array(_) => "an array",
            Value::Table(_) => "a table",
            Value::Other(what) => what,
        }
    }
}

/// A TOML parse error: message and where.
pub struct ParseError {
    pub message: String,
    pub at: Option<Range<usize>>,
}

/// Parses `lanes.toml` text.
pub fn from_toml(text: &str) -> Result<Node, ParseError> {
    let table = toml::de::DeTable::parse(text).map_err(|e| ParseError {
        message: e.message().trim().replace('\n', "; "),
        at: e.span(),
    })?;
    let at = table.span();
    Ok(Node {
        value: toml_table(table.into_inner()),
        at: Some(at),
    })
}

fn toml_table(t: toml::de::DeTable<'_>) -> Value {
    let mut entries: Vec<(String, Option<Range<usize>>, Node)> = t
        .into_iter()
        .map(|(k, v)| {
            let key_at = k.span();
            let at = v.span();
            (
                k.into_inner().into_owned(),
                Some(key_at),
                Node {
                    value: toml_value(v.into_inner()),
                    at: Some(at),
                },
            )
        })
        .collect();
    // The parser's map is ordered by key; errors come in source order.
    entries.sort_by_key(|(_, k, _)| k.as_ref().map_or(0, |r| r.start));
    Value::Table(entries)
}

fn toml_value(v: toml::de::DeValue<'_>) -> Value {
    use toml::de::DeValue;
    match v {
        DeValue::String(s) => Value::Str(s.into_owned()),
        DeValue::Integer(i) => match i64::from_str_radix(i.as_str(), i.radix()) {
            Ok(n) => Value::Int(n),
            Err(_) => Value::Other("an integer beyond 64 bits"),
        },
        DeValue::Float(_) => Value::Float,
        DeValue::Boolean(b) => Value::Bool(b),
        DeValue::Datetime(_) => Value::Other("a date"),
        DeValue::Array(a) => Value::Array(
            a.into_iter()
                .map(|x| {
                    let at = x.span();
                    Node {
                        value: toml_value(x.into_inner()),
                        at: Some(at),
                    }
                })
                .collect(),
        ),
        DeValue::Table(t) => toml_table(t),
    }
}

/// The editor's settings (initializationOptions, didChangeConfiguration).
pub fn from_json(v: &serde_json::Value) -> Node {
    use serde_json::Value as J;
    let value = match v {
        J::String(s) => Value::Str(s.clone()),
        J::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => Value::Int(i),
            (None, Some(_)) if n.is_u64() => Value::Other("an integer beyond 64 bits"),
            (None, Some(_)) => Value::Float,
            (None, None) => Value::Other("a number"),
        },
        J::Bool(b) => Value::Bool(*b),
        J::Null => Value::Other("null"),
        J::Array(a) => Value::Array(a.iter().map(from_json).collect()),
        J::Object(m) => Value::Table(
            m.iter()
                .map(|(k, v)| (k.clone(), None, from_json(v)))
                .collect(),
        ),
    };
    Node { value, at: None }
}
