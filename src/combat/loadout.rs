//! What a combatant carries: [`Equipment`] in slots and an [`Inventory`].

use serde::{Deserialize, Serialize};
use smallvec::SmallVec;

use super::defs::{CombatDefs, DamageType, ItemDef, ItemId, WeaponDef};
use crate::tags::Tag;

/// Items worn, one per slot, with a quantity (ammunition stacks).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Equipment {
    slots: SmallVec<[(Tag, ItemId, u32); 4]>,
}

impl Equipment {
    /// Nothing worn.
    pub fn new() -> Self {
        Self::default()
    }

    /// What is in `slot`, with its quantity.
    pub fn in_slot(&self, slot: Tag) -> Option<(ItemId, u32)> {
        self.slots
            .iter()
            .find(|(s, _, _)| *s == slot)
            .map(|&(_, i, q)| (i, q))
    }

    /// Puts `quantity` of `item` in `slot`, returning what was there.
    pub fn put(&mut self, slot: Tag, item: ItemId, quantity: u32) -> Option<(ItemId, u32)> {
        let old = self.take(slot);
        if quantity > 0 {
            self.slots.push((slot, item, quantity));
            self.slots.sort_by_key(|(s, _, _)| *s);
        }
        old
    }

    /// Empties `slot`.
    pub fn take(&mut self, slot: Tag) -> Option<(ItemId, u32)> {
        let at = self.slots.iter().position(|(s, _, _)| *s == slot)?;
        let (_, item, quantity) = self.slots.remove(at);
        Some((item, quantity))
    }

    /// Uses up one of what is in `slot`; `false` if it is empty.
    pub fn consume_one(&mut self, slot: Tag) -> bool {
        let Some(at) = self.slots.iter().position(|(s, _, _)| *s == slot) else {
            return false;
        };
        self.slots[at].2 -= 1;
        if self.slots[at].2 == 0 {
            self.slots.remove(at);
        }
        true
    }

    /// Every `(slot, item, quantity)`, in slot order.
    pub fn iter(&self) -> impl Iterator<Item = (Tag, ItemId, u32)> + '_ {
        self.slots.iter().copied()
    }

    fn items<'a>(&'a self, defs: &'a CombatDefs) -> impl Iterator<Item = &'a ItemDef> + 'a {
        self.slots
            .iter()
            .filter_map(|&(_, item, _)| defs.item(item))
    }

    /// The weapon worn in `weapon_slot`, if any.
    pub fn weapon<'a>(
        &self,
        defs: &'a CombatDefs,
        weapon_slot: Tag,
    ) -> Option<(ItemId, &'a WeaponDef)> {
        let (item, _) = self.in_slot(weapon_slot)?;
        defs.item(item)?.weapon.as_ref().map(|w| (item, w))
    }

    /// Attack bonus against `damage_type`, summed over every slot.
    pub fn attack_bonus(&self, defs: &CombatDefs, damage_type: DamageType) -> i32 {
        self.items(defs)
            .map(|i| i.attack_bonus[damage_type.index()])
            .sum()
    }

    /// Defense bonus against `damage_type`, summed over every slot.
    pub fn defense_bonus(&self, defs: &CombatDefs, damage_type: DamageType) -> i32 {
        self.items(defs)
            .map(|i| i.defense_bonus[damage_type.index()])
            .sum()
    }

    /// Melee strength bonus, summed.
    pub fn strength(&self, defs: &CombatDefs) -> i32 {
        self.items(defs).map(|i| i.strength).sum()
    }

    /// Ranged strength bonus, summed.
    pub fn ranged_strength(&self, defs: &CombatDefs) -> i32 {
        self.items(defs).map(|i| i.ranged_strength).sum()
    }

    /// Magic damage bonus in percent, summed.
    pub fn magic_damage(&self, defs: &CombatDefs) -> f64 {
        self.items(defs).map(|i| i.magic_damage).sum()
    }
}

/// Items carried, as stacks `(item, quantity)`, in a stable order.
///
/// One word while it has never held anything: every combatant has two
/// (what it carries, and the cold storage its items go to on death), most
/// fighters carry nothing and few ever die with something, so the stacks
/// sit behind a box made by the first item, with room inside it for two
/// (a caster's runes) before they move on to the heap. An inventory that
/// empties keeps its box, so one refilled every fight allocates nothing.
/// Saved as the list of its stacks, as it always was.
#[derive(Clone, Debug, Default)]
pub struct Inventory {
    stacks: Option<Box<Stacks>>,
}

/// An [`Inventory`]'s stacks, in its box.
type Stacks = SmallVec<[(ItemId, u32); 2]>;

impl Inventory {
    /// Empty.
    pub fn new() -> Self {
        Self::default()
    }

    /// The stacks, in order (none before the first item).
    fn stacks(&self) -> &[(ItemId, u32)] {
        self.stacks.as_deref().map_or(&[], |stacks| &stacks[..])
    }

    /// Asks the memory system for the stacks (held apart from the
    /// `Combatant`), for the prefetch stage: a cast reads and spends its
    /// runes here.
    pub(crate) fn prefetch(&self) {
        if let Some(stacks) = self.stacks.as_deref() {
            crate::prefetch_component(stacks);
        }
    }

    /// How many of `item`.
    pub fn count(&self, item: ItemId) -> u32 {
        self.stacks()
            .iter()
            .filter(|(i, _)| *i == item)
            .map(|(_, q)| q)
            .sum()
    }

    /// Adds `quantity` of `item` (to its stack, or a new one at the end).
    pub fn add(&mut self, item: ItemId, quantity: u32) {
        if quantity == 0 {
            return;
        }
        let stacks = self.stacks.get_or_insert_default();
        match stacks.iter_mut().find(|(i, _)| *i == item) {
            Some(stack) => stack.1 = stack.1.saturating_add(quantity),
            None => stacks.push((item, quantity)),
        }
    }

    /// Removes `quantity` of `item` if there are that many; all or nothing.
    pub fn remove(&mut self, item: ItemId, quantity: u32) -> bool {
        let held = self.stacks.as_deref_mut().and_then(|stacks| {
            let at = stacks.iter().position(|(i, _)| *i == item)?;
            Some((stacks, at))
        });
        let Some((stacks, at)) = held else {
            return quantity == 0;
        };
        if stacks[at].1 < quantity {
            return false;
        }
        stacks[at].1 -= quantity;
        if stacks[at].1 == 0 {
            stacks.remove(at);
        }
        true
    }

    /// True when every `(item, quantity)` is there.
    pub fn has_all(&self, needs: &[(ItemId, u32)]) -> bool {
        needs
            .iter()
            .all(|&(item, quantity)| self.count(item) >= quantity)
    }

    /// Every stack, in order.
    pub fn iter(&self) -> impl Iterator<Item = (ItemId, u32)> + '_ {
        self.stacks().iter().copied()
    }

    /// Removes every stack and returns them (the box stays, for what is
    /// put back).
    pub fn drain(&mut self) -> Vec<(ItemId, u32)> {
        self.stacks
            .as_deref_mut()
            .map_or_else(Vec::new, |stacks| stacks.drain(..).collect())
    }

    /// Number of stacks.
    pub fn len(&self) -> usize {
        self.stacks().len()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.stacks().is_empty()
    }
}

/// Two inventories are equal when they hold the same stacks in the same
/// order, whether or not an empty one has its box yet.
impl PartialEq for Inventory {
    fn eq(&self, other: &Self) -> bool {
        self.stacks() == other.stacks()
    }
}

impl Eq for Inventory {}

/// An [`Inventory`] as saved: the list of its stacks, the shape it always
/// had. Written from a borrow; read owned.
#[derive(Serialize)]
#[serde(rename = "Inventory")]
struct SavedInventoryRef<'a> {
    stacks: &'a [(ItemId, u32)],
}

#[derive(Deserialize)]
#[serde(rename = "Inventory")]
struct SavedInventory {
    stacks: Vec<(ItemId, u32)>,
}

impl Serialize for Inventory {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        SavedInventoryRef {
            stacks: self.stacks(),
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Inventory {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let saved = SavedInventory::deserialize(deserializer)?;
        let stacks = (!saved.stacks.is_empty()).then(|| Box::new(Stacks::from_vec(saved.stacks)));
        Ok(Self { stacks })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(index: usize) -> ItemId {
        ItemId::new(index)
    }

    /// One word for an inventory that never held anything, so the two in
    /// every combatant cost 16 bytes rather than 48.
    #[test]
    fn an_inventory_is_one_word_until_it_holds_something() {
        assert_eq!(std::mem::size_of::<Inventory>(), 8);
        assert_eq!(std::mem::size_of::<super::super::Combatant>(), 248);
    }

    /// Stacks merge by item and keep their order; removal is all or
    /// nothing; an inventory emptied (keeping its box) is equal to a new
    /// one, and a drain hands the stacks out in order.
    #[test]
    fn stacks_merge_keep_order_and_an_emptied_inventory_equals_a_new_one() {
        let mut bag = Inventory::new();
        assert!(bag.is_empty() && bag.remove(item(1), 0) && !bag.remove(item(1), 1));
        bag.add(item(4), 3);
        bag.add(item(1), 2);
        bag.add(item(4), 5);
        bag.add(item(9), 0);
        assert_eq!(bag.iter().collect::<Vec<_>>(), [(item(4), 8), (item(1), 2)]);
        assert!(!bag.remove(item(1), 3), "only two");
        assert_eq!(bag.count(item(1)), 2);
        assert!(bag.remove(item(4), 8));
        assert_eq!((bag.len(), bag.count(item(4))), (1, 0));
        assert!(bag.remove(item(1), 2));
        assert_eq!(bag, Inventory::new());
        bag.add(item(2), 1);
        bag.add(item(3), 1);
        bag.add(item(5), 7);
        assert_eq!(
            bag.drain(),
            [(item(2), 1), (item(3), 1), (item(5), 7)],
            "past the box's inline room, still in order"
        );
        assert!(bag.is_empty());
        assert_eq!(bag, Inventory::new());
    }

    /// Saved as the list of stacks it always was, read back equal, empty
    /// or not (with or without its box).
    #[test]
    fn an_inventory_saves_as_its_list_of_stacks() {
        #[derive(Serialize)]
        #[serde(rename = "Inventory")]
        struct AsItWas {
            stacks: Vec<(ItemId, u32)>,
        }
        let mut bag = Inventory::new();
        let empty = ron::to_string(&bag).unwrap();
        assert_eq!(empty, ron::to_string(&AsItWas { stacks: vec![] }).unwrap());
        bag.add(item(7), 30);
        bag.add(item(2), 1);
        let text = ron::to_string(&bag).unwrap();
        let as_it_was = AsItWas {
            stacks: vec![(item(7), 30), (item(2), 1)],
        };
        assert_eq!(text, ron::to_string(&as_it_was).unwrap());
        assert_eq!(ron::from_str::<Inventory>(&text).unwrap(), bag);
        bag.drain();
        assert_eq!(
            ron::to_string(&bag).unwrap(),
            empty,
            "an emptied box saves as none"
        );
        assert_eq!(ron::from_str::<Inventory>(&empty).unwrap(), bag);
    }
}
