//! [`AbilitySystem`]: the per-entity component (the role of Unreal's
//! `UAbilitySystemComponent`).

use serde::{Deserialize, Serialize};

use crate::attributes::{AttributeId, Attributes};
use crate::effects::EffectHost;
use crate::tags::{Tag, TagCounts};

/// Everything gaskit keeps on one entity: attribute values, owned tags and
/// active effects. Spawn it with the entity
/// ([`Gas::new_ability_system`](crate::Gas::new_ability_system)); change it
/// only through the context ([`Gas`](crate::Gas)), which runs the rules.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct AbilitySystem {
    pub(crate) host: EffectHost,
    /// Already waiting in the context's reconcile queue.
    #[serde(skip)]
    pub(crate) queued: bool,
}

impl AbilitySystem {
    pub(crate) fn new(attributes: Attributes) -> Self {
        Self {
            host: EffectHost::new(attributes),
            queued: false,
        }
    }

    /// Attribute values.
    pub fn attributes(&self) -> &Attributes {
        &self.host.attributes
    }

    /// Current value of one attribute.
    pub fn current(&self, attribute: AttributeId) -> f64 {
        self.host.attributes.current(attribute)
    }

    /// Owned tags with their reference counts.
    pub fn tags(&self) -> &TagCounts {
        &self.host.tags
    }

    /// Parent-aware: the entity owns `tag` or a descendant of it.
    pub fn has_tag(&self, tag: Tag) -> bool {
        self.host.tags.tags().has(tag)
    }

    /// Active effects.
    pub fn effects(&self) -> &EffectHost {
        &self.host
    }
}
