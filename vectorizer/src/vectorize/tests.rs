//! Vectorizer tests: structure of the vector IR and its semantics.
