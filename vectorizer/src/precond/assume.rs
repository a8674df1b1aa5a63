//! Assumption-aware analysis: placeholder, filled below.
