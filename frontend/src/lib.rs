//! The OpenCL C front end of lanes.
//!
//! Pipeline: [`lexer`] → [`preprocess`] (macros, includes, conditionals, with
//! the origin of every token) → [`parser`] (error-tolerant, to [`ast`]) →
//! [`sema`] (name resolution and type checking, to the typed [`hir`]).
//! [`unit`] runs all of it on one file.

pub mod ast;
pub mod builtins;
pub mod diag;
pub mod fp_contract;
pub mod hir;
pub mod image;
pub mod lexer;
pub mod loop_pragma;
pub mod moved;
pub mod parser;
pub mod preprocess;
pub mod printf;
pub mod reparse;
pub mod sema;
pub mod source;
pub mod suppress;
pub mod types;
pub mod unit;
pub mod workgroup;
