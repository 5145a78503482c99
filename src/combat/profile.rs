//! Persistence: a saved profile holds only sources (skill XP, items, style,
//! spellbook state, health); loading recomputes everything else.
//!
//! Profiles name things (`"Bronze Scimitar"`, `"Spellbook.Standard"`), never
//! ids, so content changes between sessions cannot corrupt a save. A damaged
//! or old save loads with documented fallbacks and a report of each one;
//! nothing panics.

use hecs::{Entity, World};
use serde::{Deserialize, Serialize};

use super::combatant::Combatant;
use super::defs::{ItemId, Skill, Style};
use super::native;
use super::progress::sync_max_health;
use super::runtime::CombatRuntime;
use super::style::apply_style;
use crate::abilities::{AbilitySystem, GameplayEvent};
use crate::effects::EffectSpec;
use crate::gas::Gas;

/// Everything saved about one combatant.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Profile {
    /// XP per skill, by skill tag name, in hundredths.
    pub skills: Vec<(String, u64)>,
    /// Worn items: `(slot tag, item, quantity)`.
    pub equipment: Vec<(String, String, u32)>,
    /// Carried items.
    pub inventory: Vec<(String, u32)>,
    /// Items in cold storage.
    pub cold_storage: Vec<(String, u32)>,
    /// The style tag; missing means Aggressive.
    pub style: Option<String>,
    /// The current spellbook tag.
    pub spellbook: String,
    /// Unlocked spellbook tags.
    pub unlocked_spellbooks: Vec<String>,
    /// The autocast spell.
    pub autocast: Option<String>,
    /// Current health (persisted so quitting never heals).
    pub health: f64,
}

/// What loading had to repair.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LoadReport {
    /// One line per fallback taken.
    pub fallbacks: Vec<String>,
}

impl LoadReport {
    /// True when the save loaded exactly as written.
    pub fn is_clean(&self) -> bool {
        self.fallbacks.is_empty()
    }
}

/// Captures `entity`'s profile. Saving while `Status.InCombat` is active
/// counts as dying: the save first sends `entity` `Combat.Event.Death`,
/// whose ability runs the death flow when the entity holds one (the
/// shipped content grants it), so the saved state already reflects kept
/// items, cold storage and respawn health.
pub fn save_profile(
    runtime: &CombatRuntime,
    world: &mut World,
    gas: &mut Gas,
    entity: Entity,
) -> Option<Profile> {
    let tags = runtime.tags();
    let names = runtime.catalog.tags();
    let in_combat = world.get::<&AbilitySystem>(entity).ok()?.has_tag(
        gas.catalog().effects(),
        gas.now(),
        tags[native::STATUS_IN_COMBAT],
    );
    if in_combat {
        // Through the one death channel: the server-only death ability.
        let death = GameplayEvent::new(tags[native::COMBAT_EVENT_DEATH]).target(entity);
        gas.handle_event(world, entity, death);
    }
    gas.record_game(super::record::CombatRecord::Saved { entity });
    let defs = runtime.defs();
    let item_name = |item: ItemId| defs.item(item).map(|i| i.name.clone()).unwrap_or_default();
    let combatant = world.get::<&Combatant>(entity).ok()?;
    let system = world.get::<&AbilitySystem>(entity).ok()?;
    let style = Style::ALL
        .iter()
        .map(|s| s.tag(tags))
        .find(|&t| system.saved_loose_tags().has_exact(t))
        .map(|t| names.name(t).to_owned());
    Some(Profile {
        skills: Skill::ALL
            .iter()
            .map(|&s| {
                (
                    names.name(s.tag(tags)).to_owned(),
                    combatant.skills.centi_xp(s),
                )
            })
            .collect(),
        equipment: combatant
            .equipment
            .iter()
            .map(|(slot, item, q)| (names.name(slot).to_owned(), item_name(item), q))
            .collect(),
        inventory: combatant
            .inventory
            .iter()
            .map(|(i, q)| (item_name(i), q))
            .collect(),
        cold_storage: combatant
            .cold_storage
            .iter()
            .map(|(i, q)| (item_name(i), q))
            .collect(),
        style,
        spellbook: names.name(combatant.spellbook.current).to_owned(),
        unlocked_spellbooks: combatant
            .spellbook
            .unlocked
            .iter()
            .map(|&b| names.name(b).to_owned())
            .collect(),
        autocast: combatant
            .spellbook
            .autocast
            .and_then(|s| defs.spell(s))
            .map(|s| s.name.clone()),
        health: system.current(runtime.health),
    })
}

/// Applies `profile` to `entity` (which has a fresh [`Combatant`] and
/// ability system), recomputing `MaxHealth` from the Hitpoints level and
/// restoring health. Fallbacks: an unknown skill, slot or item is dropped;
/// an item that cannot be worn where it was saved, or one saved in a slot
/// a later entry fills again, goes to the inventory;
/// an unknown or locked spellbook becomes the default book; the default book
/// is always unlocked; an autocast spell from another book is cleared; a
/// missing style is Aggressive, an unknown one too (reported); health is clamped into
/// `(0, MaxHealth]` (a dead save comes back at 1).
pub fn load_profile(
    runtime: &CombatRuntime,
    world: &mut World,
    gas: &mut Gas,
    entity: Entity,
    profile: &Profile,
) -> Result<LoadReport, crate::gas::AbilityError> {
    let tags = runtime.tags();
    let names = runtime.catalog.tags();
    let defs = runtime.defs();
    let mut report = LoadReport::default();
    let item = |name: &str, report: &mut LoadReport| -> Option<ItemId> {
        let found = defs.item_named(name);
        if found.is_none() {
            report
                .fallbacks
                .push(format!("unknown item `{name}` dropped"));
        }
        found
    };
    {
        let combatant = world
            .query_one_mut::<&mut Combatant>(entity)
            .map_err(|_| crate::gas::AbilityError::NoSuchEntity(entity))?;
        for (skill_name, centi_xp) in &profile.skills {
            match names.get(skill_name).and_then(|t| Skill::from_tag(tags, t)) {
                Some(skill) => combatant.skills.set_centi_xp(skill, *centi_xp),
                None => report
                    .fallbacks
                    .push(format!("unknown skill `{skill_name}` dropped")),
            }
        }
        for (slot_name, item_name, quantity) in &profile.equipment {
            let slot = names.get(slot_name);
            match (slot, item(item_name, &mut report)) {
                (Some(slot), Some(id)) if defs.item(id).and_then(|d| d.slot) == Some(slot) => {
                    // The combatant is fresh, so whatever the slot gave back
                    // came from an earlier entry of this save.
                    if let Some((earlier, count)) = combatant.equipment.put(slot, id, *quantity) {
                        let earlier_name = defs.item(earlier).map_or("?", |d| d.name.as_str());
                        report.fallbacks.push(format!(
                            "`{slot_name}` is saved twice; `{earlier_name}` moved to the inventory"
                        ));
                        combatant.inventory.add(earlier, count);
                    }
                }
                (_, Some(id)) => {
                    report.fallbacks.push(format!(
                        "`{item_name}` cannot be worn in `{slot_name}`; moved to the inventory"
                    ));
                    combatant.inventory.add(id, *quantity);
                }
                _ => {}
            }
        }
        for (name, quantity) in &profile.inventory {
            if let Some(id) = item(name, &mut report) {
                combatant.inventory.add(id, *quantity);
            }
        }
        for (name, quantity) in &profile.cold_storage {
            if let Some(id) = item(name, &mut report) {
                combatant.cold_storage.add(id, *quantity);
            }
        }
        let default_book = defs.settings.default_spellbook;
        let mut unlocked: smallvec::SmallVec<[crate::tags::Tag; 2]> = smallvec::SmallVec::new();
        for name in &profile.unlocked_spellbooks {
            match names.get(name).filter(|&b| defs.is_known_book(b)) {
                Some(book) if !unlocked.contains(&book) => unlocked.push(book),
                Some(_) => {}
                None => report
                    .fallbacks
                    .push(format!("unknown spellbook `{name}` dropped")),
            }
        }
        // The contract's apply-time rule: only a current book the catalog
        // no longer knows falls back to the default; the book in use and
        // the default are then both unlocked, so the player can always
        // reach at least the fallback.
        let current = match names
            .get(&profile.spellbook)
            .filter(|&b| defs.is_known_book(b))
        {
            Some(book) => book,
            None => {
                report.fallbacks.push(format!(
                    "spellbook `{}` is unknown; using `{}`",
                    profile.spellbook,
                    names.name(default_book)
                ));
                default_book
            }
        };
        // Said when the save had it in use but not unlocked: a save that
        // did not come from play (a tampered one would unlock a book so).
        if current != default_book && !unlocked.contains(&current) {
            report.fallbacks.push(format!(
                "spellbook `{}` was in use but not unlocked; unlocked",
                names.name(current)
            ));
        }
        for book in [current, default_book] {
            if !unlocked.contains(&book) {
                unlocked.push(book);
            }
        }
        combatant.spellbook.current = current;
        combatant.spellbook.unlocked = unlocked;
        combatant.spellbook.autocast = match &profile.autocast {
            None => None,
            Some(name) => match defs.spell_named(name) {
                Some(spell) if defs.spell(spell).is_some_and(|s| s.book == current) => Some(spell),
                _ => {
                    report.fallbacks.push(format!(
                        "autocast `{name}` is not in the current book; cleared"
                    ));
                    None
                }
            },
        };
    }
    // No style saved means the default; a name that is not a style is a
    // fallback worth reporting.
    let style = match profile.style.as_deref() {
        None => Style::Aggressive,
        Some(name) => match names.get(name).and_then(|t| Style::from_tag(tags, t)) {
            Some(style) => style,
            None => {
                report
                    .fallbacks
                    .push(format!("unknown style `{name}`; using Aggressive"));
                Style::Aggressive
            }
        },
    };
    apply_style(runtime, world, gas, entity, style);
    sync_max_health(runtime, world, gas, entity);
    let max = world
        .get::<&AbilitySystem>(entity)
        .map_or(1.0, |s| s.current(runtime.max_health));
    let health = if profile.health.is_finite() && profile.health > 0.0 {
        profile.health.min(max)
    } else {
        report.fallbacks.push(format!(
            "health {} is not a living value; loaded at 1",
            profile.health
        ));
        1.0
    };
    // Health only ever changes through the damage channel: the difference
    // between the fresh body and the save, as a profile effect (not
    // combat: no cue, no XP, no in-combat refresh).
    let current = world
        .get::<&AbilitySystem>(entity)
        .map_or(health, |s| s.current(runtime.health));
    if current != health {
        let key = runtime.tags()[native::SET_BY_CALLER_HEAL];
        let spec = EffectSpec::new(runtime.profile_health_effect)
            .with_source(entity)
            .with_set_by_caller(key, current - health);
        gas.apply_effect_recorded(world, entity, spec);
    }
    Ok(report)
}
