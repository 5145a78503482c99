//! The catalog: every definition, loaded from `tags/*.tags` and
//! `abilities/*.ron`, validated, with names resolved to ids once.

mod builder;
mod content;

pub use builder::{Catalog, CatalogBuilder, DEFAULT_CONTENT_FILES};
pub use content::ContentFile;
