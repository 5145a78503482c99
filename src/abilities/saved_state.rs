//! [`AbilityState`] as saved: its fields in the order they were always
//! saved in, the loose tags as the two sets they once were inline, whatever
//! shape the state keeps them in memory (out of line, see [`LooseTags`]).
//! Written from borrows, so a save or a checksum copies nothing; read
//! owned.

use serde::{Deserialize, Serialize};
use smallvec::SmallVec;

use super::blocks::AbilityBlocks;
use super::loose::LooseTags;
use super::state::{AbilityState, Granted, Instance, InstanceKey, TargetedBy, RESERVED_INSTANCES};
use crate::slots::Slots;
use crate::tags::{TagCounts, TagSet};

/// The saved fields, read owned.
#[derive(Deserialize)]
#[serde(rename = "AbilityState")]
struct SavedState {
    granted: SmallVec<[Granted; 4]>,
    instances: Slots<InstanceKey, Instance, RESERVED_INSTANCES>,
    loose: TagCounts,
    saved_loose: TagSet,
    blocked: AbilityBlocks,
    targeted_by: TargetedBy,
}

/// The saved fields, borrowed from a state, in [`SavedState`]'s order.
#[derive(Serialize)]
#[serde(rename = "AbilityState")]
struct SavedStateRef<'a> {
    granted: &'a SmallVec<[Granted; 4]>,
    instances: &'a Slots<InstanceKey, Instance, RESERVED_INSTANCES>,
    loose: &'a TagCounts,
    saved_loose: &'a TagSet,
    blocked: &'a AbilityBlocks,
    targeted_by: &'a TargetedBy,
}

impl Serialize for AbilityState {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        // Borrowed but for one kind of loose tag held in place, made
        // inline for the save (no allocation).
        let (loose, saved_loose) = (self.loose.counts(), self.loose.saved());
        SavedStateRef {
            granted: &self.granted,
            instances: &self.instances,
            loose: &loose,
            saved_loose: &saved_loose,
            blocked: self.loose.blocked(),
            targeted_by: &self.targeted_by,
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for AbilityState {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let saved = SavedState::deserialize(deserializer)?;
        Ok(AbilityState {
            granted: saved.granted,
            instances: saved.instances,
            loose: LooseTags::from_saved(saved.loose, saved.saved_loose, saved.blocked),
            targeted_by: saved.targeted_by,
        })
    }
}

#[cfg(test)]
mod tests {
    use hecs::World;

    use crate::abilities::AbilitySystem;
    use crate::catalog::CatalogBuilder;
    use crate::gas::Gas;

    /// The state saves its fields in the order they always had, the loose
    /// tags as the counted set and then the saved set, and reads back the
    /// same.
    #[test]
    fn an_ability_state_saves_in_its_historical_order_and_reads_back() {
        let mut builder = CatalogBuilder::new();
        builder
            .tags()
            .add_source("test.tags", "Test.Marked\nTest.Passing\n");
        let mut gas = Gas::new(builder.build().unwrap());
        let marked = gas.catalog().tags().get("Test.Marked").unwrap();
        let passing = gas.catalog().tags().get("Test.Passing").unwrap();
        let mut world = World::new();
        let entity = world.spawn((gas.new_ability_system(),));
        gas.add_loose_tag(&mut world, entity, marked, true);
        gas.add_loose_tag(&mut world, entity, passing, false);
        let system = world.get::<&AbilitySystem>(entity).unwrap();
        let text = ron::to_string(&system.abilities).unwrap();
        let fields = [
            "granted:",
            "instances:",
            "loose:",
            "saved_loose:",
            "blocked:",
            "targeted_by:",
        ];
        let at: Vec<usize> = fields.iter().map(|f| text.find(f).unwrap()).collect();
        assert!(at.windows(2).all(|w| w[0] < w[1]), "{text}");
        let back: super::AbilityState = ron::from_str(&text).unwrap();
        assert_eq!(back.loose.counts(), system.abilities.loose.counts());
        assert!(back.loose.saved().has_exact(marked));
        assert!(!back.loose.saved().has_exact(passing));
        assert_eq!(ron::to_string(&back).unwrap(), text);
    }
}
