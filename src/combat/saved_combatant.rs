//! [`Combatant`] as saved: its fields in the order they were always saved
//! in, whatever order it keeps them in memory (what an attack reads first,
//! see its docs). Written from borrows, so a save or a checksum copies
//! nothing; read owned.

use serde::{Deserialize, Serialize};

use super::chase::ChaseState;
use super::combatant::{Attackers, Combatant, SpellbookState, Targeting};
use super::defs::{CombatDefs, KindId};
use super::loadout::{Equipment, Inventory};
use super::skills::Skills;
use crate::catalog::Catalog;
use crate::snapshot::RollbackComponent;

impl RollbackComponent for Combatant {
    /// Every kind, item, spell and tag it names is the catalog's: a kind
    /// out of range would panic at the next poll, and the others would
    /// read as nothing.
    fn check(&self, catalog: &Catalog) -> Result<(), String> {
        let defs = catalog
            .section::<CombatDefs>()
            .ok_or("a combatant, in a catalog without combat content")?;
        if self.kind.index() >= defs.kind_ids().len() {
            return Err(format!(
                "combat kind #{} is not in this catalog",
                self.kind.index()
            ));
        }
        let tags = catalog.tags();
        let book = &self.spellbook;
        let tags_known = self.equipment.iter().all(|(slot, _, _)| tags.knows(slot))
            && tags.knows(book.current)
            && book.unlocked.iter().all(|&b| tags.knows(b));
        if !tags_known {
            return Err("a combatant names a tag not in this catalog".into());
        }
        let items_known = self
            .equipment
            .iter()
            .map(|(_, item, _)| item)
            .chain(self.inventory.iter().map(|(item, _)| item))
            .chain(self.cold_storage.iter().map(|(item, _)| item))
            .all(|item| defs.item(item).is_some());
        if !items_known {
            return Err("a combatant holds an item not in this catalog".into());
        }
        let spells_known = [book.autocast, self.targeting.pending_weave]
            .into_iter()
            .flatten()
            .all(|spell| defs.spell(spell).is_some());
        if !spells_known {
            return Err("a combatant names a spell not in this catalog".into());
        }
        if !defs.is_known_book(book.current) {
            return Err("a combatant's spellbook is not one of the catalog's books".into());
        }
        // The shapes play keeps: one stack an item, one item a slot (its
        // own), never an empty one. A worn stack of none would underflow
        // at the next shot; two stacks of one rune would be counted whole
        // and paid from one.
        let mut slots = Vec::new();
        for (slot, item, quantity) in self.equipment.iter() {
            let own = defs.item(item).and_then(|d| d.slot) == Some(slot);
            if quantity == 0 || !own || slots.contains(&slot) {
                return Err(format!(
                    "a combatant wears `{}` as play never would (an empty stack, another slot's item, or a slot twice)",
                    tags.name(slot)
                ));
            }
            slots.push(slot);
        }
        for (what, held) in [
            ("inventory", &self.inventory),
            ("cold storage", &self.cold_storage),
        ] {
            let mut seen = Vec::new();
            for (item, quantity) in held.iter() {
                if quantity == 0 || seen.contains(&item) {
                    return Err(format!(
                        "a combatant's {what} holds an empty stack, or one item in two stacks"
                    ));
                }
                seen.push(item);
            }
        }
        Ok(())
    }
}

/// The saved fields, read owned.
#[derive(Deserialize)]
#[serde(rename = "Combatant")]
struct SavedCombatant {
    kind: KindId,
    skills: Skills,
    equipment: Equipment,
    inventory: Inventory,
    cold_storage: Inventory,
    spellbook: SpellbookState,
    targeting: Targeting,
    attackers: Attackers,
    chase: ChaseState,
}

/// The saved fields, borrowed from a combatant, in [`SavedCombatant`]'s
/// order.
#[derive(Serialize)]
#[serde(rename = "Combatant")]
struct SavedCombatantRef<'a> {
    kind: KindId,
    skills: &'a Skills,
    equipment: &'a Equipment,
    inventory: &'a Inventory,
    cold_storage: &'a Inventory,
    spellbook: &'a SpellbookState,
    targeting: &'a Targeting,
    attackers: &'a Attackers,
    chase: &'a ChaseState,
}

impl Serialize for Combatant {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        SavedCombatantRef {
            kind: self.kind,
            skills: &self.skills,
            equipment: &self.equipment,
            inventory: &self.inventory,
            cold_storage: &self.cold_storage,
            spellbook: &self.spellbook,
            targeting: &self.targeting,
            attackers: &self.attackers,
            chase: &self.chase,
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Combatant {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let saved = SavedCombatant::deserialize(deserializer)?;
        Ok(Combatant {
            skills: saved.skills,
            equipment: saved.equipment,
            targeting: saved.targeting,
            spellbook: saved.spellbook,
            kind: saved.kind,
            inventory: saved.inventory,
            attackers: saved.attackers,
            chase: saved.chase,
            cold_storage: saved.cold_storage,
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::combat::{default_catalog, new_combatant, CombatRuntime, Combatant};
    use crate::tags::Tag;

    /// A saved combatant lists its fields in the order saves always had,
    /// not in its memory order, and reads back to the same combatant.
    #[test]
    fn a_combatant_saves_in_the_order_saves_always_had() {
        let runtime = CombatRuntime::new(std::sync::Arc::new(default_catalog())).unwrap();
        let defs = runtime.defs();
        let mut fighter = new_combatant(defs, defs.default_kind());
        let rune = defs.item_ids().next().unwrap();
        fighter.inventory.add(rune, 3);
        fighter.spellbook.unlocked.push(Tag::from_parts(1, 2));
        let text = ron::to_string(&fighter).unwrap();
        let order = [
            "kind:",
            "skills:",
            "equipment:",
            "inventory:",
            "cold_storage:",
            "spellbook:",
            "targeting:",
            "attackers:",
            "chase:",
        ]
        .map(|field| {
            text.find(field)
                .unwrap_or_else(|| panic!("{field} in {text}"))
        });
        assert!(order.windows(2).all(|w| w[0] < w[1]), "{order:?} in {text}");
        let read: Combatant = ron::from_str(&text).unwrap();
        assert_eq!(read, fighter);
        assert_eq!(ron::to_string(&read).unwrap(), text);
    }
}
