//! The incremental database: which queries re-run after an edit.
