//! What several test crates read the same way, in one place: a test
//! crate that needs it declares `mod support;`.

use gaskit::prelude::*;
use hecs::Entity;

/// Every `reaction_limit` the context's trace holds: the entity it names
/// and the budget reached, in order.
pub fn reaction_limits(gas: &Gas) -> Vec<(Entity, u32)> {
    gas.trace()
        .events()
        .iter()
        .filter_map(|e| match e.kind {
            TraceKind::ReactionLimit { entity, limit } => Some((entity, limit)),
            _ => None,
        })
        .collect()
}
