//! The ability system: the per-entity component and, from issue #4 on,
//! abilities, gameplay events and activation.

mod system;

pub use system::AbilitySystem;
