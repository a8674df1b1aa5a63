//! The lanes language server: transport, document store, scheduling.
