//! [`CombatInspect`]: combat's section of an entity
//! [inspection](crate::inspect): whom it fights and with what.

use std::fmt::Write as _;
use std::sync::Arc;

use hecs::{Entity, World};

use super::combatant::Combatant;
use super::defs::{DamageType, Skill};
use super::runtime::CombatRuntime;
use super::stats::{active_style, snapshot, AttackSource};
use crate::abilities::AbilitySystem;
use crate::gas::Gas;
use crate::inspect::{InspectSection, Section};
use crate::tags::Tag;
use crate::trace::EntityNames;

/// Combat's [`InspectSection`]: target, attack channel, the next attack,
/// weave queue, chase, attackers, style, spellbook and autocast, skill
/// levels, equipment and its bonus totals. `None` for an entity that is
/// not a combatant.
pub struct CombatInspect(pub Arc<CombatRuntime>);

impl InspectSection for CombatInspect {
    fn section(&self, world: &World, gas: &Gas, entity: Entity) -> Option<Section> {
        let runtime = &*self.0;
        let combatant = world.get::<&Combatant>(entity).ok()?;
        let defs = runtime.defs();
        let names = runtime.catalog.tags();
        let tag = |t: Tag| names.name(t).to_owned();
        let who = |e: Option<Entity>| e.map_or_else(|| "-".to_owned(), |e| world.name_of(e));
        let spell = |s| {
            defs.spell(s)
                .map_or_else(|| "?".to_owned(), |d| d.name.clone())
        };
        let targeting = &combatant.targeting;
        let mut section = Section::new("combat")
            .field("target", who(targeting.target))
            .field(
                "channel",
                targeting
                    .channel
                    .map_or_else(|| "-".to_owned(), |c| tag(c.tag(runtime.tags()))),
            );
        if let Some(stats) = snapshot(runtime, world, entity, gas.now()) {
            let source = match stats.source {
                AttackSource::Weapon(None) => "bare hands".to_owned(),
                AttackSource::Weapon(Some(item)) => defs
                    .item(item)
                    .map_or_else(|| "?".to_owned(), |i| i.name.clone()),
                AttackSource::Autocast(s) => format!("autocast {}", spell(s)),
            };
            section = section.field(
                "next attack",
                format!(
                    "{source}, {}, range {} cm, every {}",
                    tag(stats.damage_type.tag(runtime.tags())),
                    stats.range_cm,
                    stats.interval
                ),
            );
        }
        section = section
            .field(
                "weave queued",
                targeting
                    .pending_weave
                    .map_or_else(|| "-".to_owned(), spell),
            )
            .field(
                "chase",
                match combatant.chase.target {
                    Some(target) => format!(
                        "chasing {}, last move to ({:.0}, {:.0}) at {}",
                        world.name_of(target),
                        combatant.chase.last_issued.x,
                        combatant.chase.last_issued.y,
                        combatant.chase.last_issue_time
                    ),
                    None => "-".to_owned(),
                },
            )
            .field(
                "attackers",
                names_of(world, combatant.attackers.current.iter().copied()),
            );
        if let Ok(system) = world.get::<&AbilitySystem>(entity) {
            let style = active_style(runtime, &system, gas.now());
            section = section.field("style", tag(style.tag(runtime.tags())));
        }
        let book = &combatant.spellbook;
        section = section.field("spellbook", tag(book.current)).field(
            "autocast",
            book.autocast.map_or_else(|| "-".to_owned(), spell),
        );
        let mut levels = String::new();
        for &skill in Skill::ALL {
            let name = tag(skill.tag(runtime.tags()));
            let short = name.rsplit('.').next().unwrap_or(&name).to_owned();
            let _ = write!(
                levels,
                "{}{short} {}",
                if levels.is_empty() { "" } else { ", " },
                combatant.skills.level(skill)
            );
        }
        section = section.field("levels", levels);
        let mut worn = Vec::new();
        for (slot, item, quantity) in combatant.equipment.iter() {
            let name = defs
                .item(item)
                .map_or_else(|| "?".to_owned(), |i| i.name.clone());
            let slot = tag(slot);
            let slot = slot.rsplit('.').next().unwrap_or(&slot).to_owned();
            worn.push(if quantity > 1 {
                format!("{slot}: {name} x{quantity}")
            } else {
                format!("{slot}: {name}")
            });
        }
        section = section.field(
            "equipment",
            if worn.is_empty() {
                "-".to_owned()
            } else {
                worn.join(", ")
            },
        );
        let by_type = |bonus: &dyn Fn(DamageType) -> i32| {
            DamageType::ALL
                .iter()
                .map(|&t| {
                    let name = tag(t.tag(runtime.tags()));
                    let short = name.rsplit('.').next().unwrap_or(&name).to_owned();
                    format!("{short} {:+}", bonus(t))
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        let equipment = &combatant.equipment;
        section = section
            .field(
                "attack bonuses",
                by_type(&|t| equipment.attack_bonus(defs, t)),
            )
            .field(
                "defense bonuses",
                by_type(&|t| equipment.defense_bonus(defs, t)),
            )
            .field(
                "strength",
                format!(
                    "melee {:+}, ranged {:+}, magic damage {:+}%",
                    equipment.strength(defs),
                    equipment.ranged_strength(defs),
                    equipment.magic_damage(defs)
                ),
            );
        Some(section)
    }
}

fn names_of(world: &World, entities: impl Iterator<Item = Entity>) -> String {
    let names: Vec<String> = entities.map(|e| world.name_of(e)).collect();
    if names.is_empty() {
        "-".to_owned()
    } else {
        names.join(", ")
    }
}
