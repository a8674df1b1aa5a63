//! The OpenCL C front end of lanes.
//!
//! Pipeline: [`lexer`] → [`preprocess`] (macros, includes, conditionals, with
//! the origin of every token) → [`parser`] (error-tolerant, to [`ast`]) →
//! [`sema`] (name resolution and type checking, to the typed [`hir`]).
//! [`check`] runs all of it on one file.

pub mod ast;
pub mod diag;
pub mod lexer;
pub mod source;
pub mod types;
