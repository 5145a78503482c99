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
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Inventory {
    stacks: Vec<(ItemId, u32)>,
}

impl Inventory {
    /// Empty.
    pub fn new() -> Self {
        Self::default()
    }

    /// Asks the memory system for the stacks (held apart from the
    /// `Combatant`), for the prefetch stage: a cast reads and spends its
    /// runes here.
    pub(crate) fn prefetch(&self) {
        crate::prefetch_component(&self.stacks[..]);
    }

    /// How many of `item`.
    pub fn count(&self, item: ItemId) -> u32 {
        self.stacks
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
        match self.stacks.iter_mut().find(|(i, _)| *i == item) {
            Some(stack) => stack.1 = stack.1.saturating_add(quantity),
            None => self.stacks.push((item, quantity)),
        }
    }

    /// Removes `quantity` of `item` if there are that many; all or nothing.
    pub fn remove(&mut self, item: ItemId, quantity: u32) -> bool {
        let Some(at) = self.stacks.iter().position(|(i, _)| *i == item) else {
            return quantity == 0;
        };
        if self.stacks[at].1 < quantity {
            return false;
        }
        self.stacks[at].1 -= quantity;
        if self.stacks[at].1 == 0 {
            self.stacks.remove(at);
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
        self.stacks.iter().copied()
    }

    /// Removes every stack and returns them.
    pub fn drain(&mut self) -> Vec<(ItemId, u32)> {
        std::mem::take(&mut self.stacks)
    }

    /// Number of stacks.
    pub fn len(&self) -> usize {
        self.stacks.len()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.stacks.is_empty()
    }
}
