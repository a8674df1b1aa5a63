//! The lanes IR, its analyses (shapes, control divergence) and transforms.
//! Depends only on the front end; built out by the divergence-analysis work.
