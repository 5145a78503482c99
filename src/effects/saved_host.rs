//! [`EffectHost`] as saved: its fields in the order they were always
//! saved in, whatever order the host keeps them in memory (hot first, see
//! its docs). Written from borrows (but for the reconcile notes, split
//! into the two short lists they are saved as), so a save or a checksum
//! copies nothing of size; read owned.

use serde::{Deserialize, Serialize};

use super::active::{EffectKey, LoadedEffect, SavedEffect};
use super::aside::HostAside;
use super::host::EffectHost;
use crate::attributes::Attributes;
use crate::slots::Slots;
use crate::tags::{TagChanges, TagCounts, TagNotes};
use crate::time::SimTime;

/// The saved fields, read owned.
#[derive(Deserialize)]
#[serde(rename = "EffectHost")]
struct SavedHost {
    attributes: Attributes,
    tags: TagCounts,
    effects: Slots<EffectKey, LoadedEffect>,
    appeared: TagChanges,
    vanished: TagChanges,
    attributes_changed: bool,
    effect_ended: bool,
}

/// The saved fields, borrowed from a host, in [`SavedHost`]'s order.
#[derive(Serialize)]
#[serde(rename = "EffectHost")]
struct SavedHostRef<'a, E> {
    attributes: &'a Attributes,
    tags: &'a TagCounts,
    /// Each effect with the expiry timer the host keeps for it.
    effects: E,
    appeared: TagChanges,
    vanished: TagChanges,
    attributes_changed: bool,
    effect_ended: bool,
}

impl Serialize for EffectHost {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        // The notes are saved as the two lists they stand for (nearly
        // always empty, so taking them apart copies nothing).
        let (appeared, vanished) = self.notes.split();
        SavedHostRef {
            attributes: &self.attributes,
            tags: &self.tags,
            effects: self.effects.saved_as(|key, effect| SavedEffect {
                effect,
                expiry: self.aside.expiry().get(key),
            }),
            appeared,
            vanished,
            attributes_changed: self.attributes_changed,
            effect_ended: self.effect_ended,
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for EffectHost {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let saved = SavedHost::deserialize(deserializer)?;
        let mut aside = HostAside::default();
        let effects = saved.effects.into_map(|key, loaded| {
            if let Some(timer) = loaded.expiry {
                aside.expiry_mut().set(key, timer);
            }
            loaded.effect
        });
        let mut host = EffectHost {
            effects,
            // Derived from the effects, below.
            lazy_due: SimTime::MAX,
            tags: saved.tags,
            // The expiry timers, read with the effects; the indexes of
            // listening effects and of lazy ends are derived, and a
            // restore rebuilds them.
            aside,
            notes: TagNotes::from_changes(&saved.appeared, &saved.vanished),
            attributes_changed: saved.attributes_changed,
            effect_ended: saved.effect_ended,
            // The owner's: it rebuilds them on restore.
            lent_to_owner: [0; 2],
            // A hint, set with the first lazy end below.
            lazy_first_slot: u32::MAX,
            attributes: saved.attributes,
        };
        host.reindex_lazy_ends();
        Ok(host)
    }
}

#[cfg(test)]
mod tests {
    use hecs::World;

    use crate::abilities::AbilitySystem;
    use crate::catalog::CatalogBuilder;
    use crate::effects::EffectSpec;
    use crate::gas::Gas;

    /// A saved host lists its fields in the order saves always had, not
    /// in its memory order; the ability system's bookkeeping is not saved;
    /// and the text reads back to a system that saves the same text.
    #[test]
    fn a_host_saves_in_the_order_saves_always_had() {
        let mut builder = CatalogBuilder::new();
        builder.tags().add_source("game.tags", "Status.Rested\n");
        builder.add_source(
            "game.ron",
            r#"(
                attributes: [(name: "Stamina", base: 10)],
                effects: [(
                    name: "GE_Rested",
                    duration: Infinite,
                    granted_tags: ["Status.Rested"],
                    modifiers: [(attribute: "Stamina", op: Flat, magnitude: Constant(5))],
                )],
            )"#,
        );
        let mut gas = Gas::new(builder.build().unwrap());
        let mut world = World::new();
        let hero = world.spawn((gas.new_ability_system(),));
        let rested = gas.catalog().effects().get("GE_Rested").unwrap();
        gas.apply_effect(&mut world, hero, EffectSpec::new(rested))
            .unwrap();
        let system = world.get::<&AbilitySystem>(hero).unwrap();
        let text = ron::to_string(&*system).unwrap();
        let order = [
            "host:",
            "attributes:",
            "tags:",
            "effects:",
            "appeared:",
            "vanished:",
            "attributes_changed:",
            "effect_ended:",
            "abilities:",
        ]
        .map(|field| {
            text.find(field)
                .unwrap_or_else(|| panic!("{field} in {text}"))
        });
        assert!(order.windows(2).all(|w| w[0] < w[1]), "{order:?} in {text}");
        for unsaved in ["queued", "reactive_waits", "listening"] {
            assert!(!text.contains(unsaved), "{unsaved} in {text}");
        }
        let read: AbilitySystem = ron::from_str(&text).unwrap();
        assert_eq!(ron::to_string(&read).unwrap(), text);
    }
}
