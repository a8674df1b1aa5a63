//! The lanes back end: vector IR to LLVM IR, objects, assembly and C headers.
//! The only crate that links LLVM.
