//! The catalog: every definition, loaded from `tags/*.tags` and
//! `abilities/*.ron`, validated, with names resolved to ids once.

mod builder;
mod content;
mod section;

pub use builder::{Catalog, CatalogBuilder};
pub use content::ContentFile;
pub use section::{ContentSection, Fingerprint, SectionCx};
