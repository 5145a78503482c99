//! [`CombatRecord`]: the combat layer's own trace events, recorded through
//! the core's [`TraceRecord`] extension point like any game module's.
//!
//! | `kind` | category | fields |
//! |---|---|---|
//! | `engaged` | Combat | `target` is the engaged entity |
//! | `target_changed` | Combat | `channel` (the leaf damage type tag, or null when cleared) |
//! | `attack` | Combat | `outcome` (`hit`, `miss`, `blocked`), `amount`, `blocked` (why, for a blocked hit), `damage_type`, `weaved` (bool), `spell` (or null) |
//! | `attack_failed` | Combat | `reason` (tag), `message` (no ammunition, no runes, or a queued weave's failed gate) |
//! | `cooldown_stamped` | Combat | `cooldown` (tag), `duration` (s) |
//! | `interval_clamped` | Combat | `computed`, `used` (s): a swing sped up below `min_attack_interval` |
//! | `weave_queued` | Combat | `spell`, `replaced` (or null) |
//! | `weave_held` | Combat | `spell`: a queued weave kept for a later tick, its target beyond the spell's range |
//! | `weave_dropped` | Combat | `spell` |
//! | `ammo_spent` | Combat | `left` |
//! | `runes_spent` | Combat | `spell` |
//! | `entered_combat` | Combat | (none) |
//! | `died` | Combat | `kept`, `stored`: lists of `{item, quantity}` |
//! | `respawned` | Combat | `x`, `y` (cm) |
//! | `style_changed` | Combat | `style` (tag) |
//! | `autocast_changed` | Combat | `spell` (or null) |
//! | `ate` | Combat | `item` |
//! | `equipped` | Combat | `item` |
//! | `equip_refused` | Combat | `item`, `reason` (tag), `message`: nothing changed |
//! | `autocast_refused` | Combat | `spell` (or null), `reason` (tag), `message`: nothing changed |
//! | `saved` | Combat | (none) |
//! | `chase` | Movement | `phase` (`begin`, `reissue`, `end`), `x`, `y` (destination, cm) |
//! | `xp` | Progress | `skill` (tag), `xp` |
//! | `level_up` | Progress | `skill` (tag), `level` |

use std::fmt::Write as _;

use hecs::Entity;

use super::defs::{CombatDefs, DamageType, ItemId, Skill, SpellId};
use super::vec2::Vec2;
use crate::tags::Tag;
use crate::time::SimDuration;
use crate::trace::{JsonFields, RenderCx, TraceCategory, TraceRecord};

/// Engagements, attacks, cooldown stamps, weaves, consumables, deaths.
pub const COMBAT: TraceCategory = TraceCategory::game(0);
/// Chase begin, re-issue and end.
pub const MOVEMENT: TraceCategory = TraceCategory::game(1);
/// XP and level-ups.
pub const PROGRESS: TraceCategory = TraceCategory::game(2);

/// How an attack went.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AttackOutcome {
    /// It hit for this much (0 is a hit for zero, not a miss).
    Hit(u32),
    /// It failed its accuracy roll.
    Miss,
    /// It would have hit for this much, but the target refused the damage
    /// (immune, dead): nothing applied.
    Blocked(u32, crate::trace::BlockReason),
}

impl AttackOutcome {
    /// The damage it dealt: a hit's amount, 0 for a miss or a refused hit.
    pub fn dealt(self) -> u32 {
        match self {
            AttackOutcome::Hit(amount) => amount,
            AttackOutcome::Miss | AttackOutcome::Blocked(..) => 0,
        }
    }
}

/// A step of a chase.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum ChasePhase {
    /// Started, moving to this point.
    Begin(Vec2),
    /// Re-issued the move to this point.
    Reissue(Vec2),
    /// Stopped chasing (the body keeps its last move).
    End,
}

/// What the combat layer records.
#[derive(Clone, Debug, PartialEq)]
pub enum CombatRecord {
    /// An attacker engaged a target.
    Engaged {
        /// Who attacks.
        attacker: Entity,
        /// Whom.
        target: Entity,
    },
    /// The active target or attack channel changed (both change together).
    TargetChanged {
        /// Whose targeting.
        entity: Entity,
        /// The new target (`None`: cleared).
        target: Option<Entity>,
        /// The leaf damage type of the attack channel.
        channel: Option<DamageType>,
    },
    /// An attack resolved.
    Attack {
        /// Who attacked.
        attacker: Entity,
        /// Whom.
        target: Entity,
        /// Hit (with amount) or miss.
        outcome: AttackOutcome,
        /// The damage type.
        damage_type: DamageType,
        /// True for a cast from the weave queue.
        weaved: bool,
        /// The spell, for casts.
        spell: Option<SpellId>,
    },
    /// An attack or a queued weave could not happen (no ammunition, no
    /// runes, or a gate the weave failed: `Activation.Fail.*`).
    AttackFailed {
        /// Who tried.
        attacker: Entity,
        /// At whom.
        target: Entity,
        /// The `Activation.Fail.*` reason.
        reason: Tag,
    },
    /// A cooldown was stamped.
    CooldownStamped {
        /// On whom.
        entity: Entity,
        /// The cooldown tag.
        cooldown: Tag,
        /// For how long.
        duration: SimDuration,
    },
    /// A computed attack interval (`SwingInterval / AttackSpeed`) fell
    /// below the settings' `min_attack_interval` and was raised to it.
    IntervalClamped {
        /// Whose.
        entity: Entity,
        /// What it computed to.
        computed: SimDuration,
        /// What it was raised to.
        used: SimDuration,
    },
    /// A chase step.
    Chase {
        /// Who chases.
        chaser: Entity,
        /// Whom.
        target: Entity,
        /// What happened.
        phase: ChasePhase,
    },
    /// A spell entered the weave queue (last click wins).
    WeaveQueued {
        /// Whose queue.
        entity: Entity,
        /// The engaged target.
        target: Entity,
        /// The spell queued.
        spell: SpellId,
        /// The spell it replaced, if any.
        replaced: Option<SpellId>,
    },
    /// A queued weave stayed queued at a tick because its target was beyond
    /// the spell's range: the tick's own attack went instead.
    WeaveHeld {
        /// Whose queue.
        entity: Entity,
        /// The engaged target.
        target: Entity,
        /// The spell kept.
        spell: SpellId,
    },
    /// A queued weave was dropped (disengage, target death).
    WeaveDropped {
        /// Whose queue.
        entity: Entity,
        /// The spell dropped.
        spell: SpellId,
    },
    /// One ammunition was used.
    AmmoSpent {
        /// Who shot.
        entity: Entity,
        /// How many are left in the slot.
        left: u32,
    },
    /// A spell's runes were used.
    RunesSpent {
        /// Who cast.
        entity: Entity,
        /// The spell.
        spell: SpellId,
    },
    /// XP was granted.
    Xp {
        /// To whom.
        entity: Entity,
        /// Which skill.
        skill: Skill,
        /// How much, in hundredths.
        centi_xp: u64,
    },
    /// A skill reached a new level.
    LevelUp {
        /// Whose.
        entity: Entity,
        /// Which skill.
        skill: Skill,
        /// The new level.
        level: u32,
    },
    /// `Status.InCombat` was gained after a clean expiry.
    EnteredCombat {
        /// Who.
        entity: Entity,
    },
    /// The death flow ran.
    Died {
        /// Who died.
        entity: Entity,
        /// Items kept, most valuable first.
        kept: Vec<(ItemId, u32)>,
        /// Items moved to cold storage.
        stored: Vec<(ItemId, u32)>,
    },
    /// A respawn.
    Respawned {
        /// Who.
        entity: Entity,
        /// Where.
        at: Vec2,
    },
    /// The combat style changed.
    StyleChanged {
        /// Whose.
        entity: Entity,
        /// The new style.
        style: Tag,
    },
    /// The autocast spell changed.
    AutocastChanged {
        /// Whose.
        entity: Entity,
        /// The new spell (`None`: cleared).
        spell: Option<SpellId>,
    },
    /// A profile was saved.
    Saved {
        /// Whose.
        entity: Entity,
    },
    /// Food was eaten.
    Ate {
        /// Who.
        entity: Entity,
        /// What.
        item: ItemId,
    },
    /// An item was equipped from the inventory.
    Equipped {
        /// Who.
        entity: Entity,
        /// What.
        item: ItemId,
    },
    /// An autocast spell could not be set; nothing changed.
    AutocastRefused {
        /// Whose.
        entity: Entity,
        /// The spell asked for (`None`: clearing).
        spell: Option<SpellId>,
        /// Why (an `Activation.Fail.*` tag).
        reason: Tag,
    },
    /// An item could not be equipped; nothing changed.
    EquipRefused {
        /// Who.
        entity: Entity,
        /// What.
        item: ItemId,
        /// Why (an `Activation.Fail.*` tag).
        reason: Tag,
    },
}

/// Combat's names for its own ids, `"?"` when the catalog lacks them.
struct Names<'a>(Option<&'a CombatDefs>);

impl<'a> Names<'a> {
    fn spell(&self, id: SpellId) -> &'a str {
        self.0
            .and_then(|d| d.spell(id))
            .map_or("?", |s| s.name.as_str())
    }

    fn item(&self, id: ItemId) -> &'a str {
        self.0
            .and_then(|d| d.item(id))
            .map_or("?", |i| i.name.as_str())
    }

    fn kind_tag<T>(&self, value: T, tag: impl Fn(T, &CombatDefs) -> Tag) -> Option<Tag> {
        self.0.map(|d| tag(value, d))
    }
}

impl TraceRecord for CombatRecord {
    fn kind(&self) -> &'static str {
        match self {
            CombatRecord::Engaged { .. } => "engaged",
            CombatRecord::TargetChanged { .. } => "target_changed",
            CombatRecord::Attack { .. } => "attack",
            CombatRecord::AttackFailed { .. } => "attack_failed",
            CombatRecord::CooldownStamped { .. } => "cooldown_stamped",
            CombatRecord::IntervalClamped { .. } => "interval_clamped",
            CombatRecord::Chase { .. } => "chase",
            CombatRecord::WeaveQueued { .. } => "weave_queued",
            CombatRecord::WeaveHeld { .. } => "weave_held",
            CombatRecord::WeaveDropped { .. } => "weave_dropped",
            CombatRecord::AmmoSpent { .. } => "ammo_spent",
            CombatRecord::RunesSpent { .. } => "runes_spent",
            CombatRecord::Xp { .. } => "xp",
            CombatRecord::LevelUp { .. } => "level_up",
            CombatRecord::EnteredCombat { .. } => "entered_combat",
            CombatRecord::Died { .. } => "died",
            CombatRecord::Respawned { .. } => "respawned",
            CombatRecord::StyleChanged { .. } => "style_changed",
            CombatRecord::AutocastChanged { .. } => "autocast_changed",
            CombatRecord::Ate { .. } => "ate",
            CombatRecord::Equipped { .. } => "equipped",
            CombatRecord::EquipRefused { .. } => "equip_refused",
            CombatRecord::AutocastRefused { .. } => "autocast_refused",
            CombatRecord::Saved { .. } => "saved",
        }
    }

    fn category(&self) -> TraceCategory {
        match self {
            CombatRecord::Chase { .. } => MOVEMENT,
            CombatRecord::Xp { .. } | CombatRecord::LevelUp { .. } => PROGRESS,
            _ => COMBAT,
        }
    }

    fn parties(&self) -> (Entity, Option<Entity>) {
        match *self {
            CombatRecord::CooldownStamped { entity, .. }
            | CombatRecord::IntervalClamped { entity, .. }
            | CombatRecord::WeaveDropped { entity, .. }
            | CombatRecord::AmmoSpent { entity, .. }
            | CombatRecord::RunesSpent { entity, .. }
            | CombatRecord::Xp { entity, .. }
            | CombatRecord::LevelUp { entity, .. }
            | CombatRecord::EnteredCombat { entity }
            | CombatRecord::Died { entity, .. }
            | CombatRecord::Respawned { entity, .. }
            | CombatRecord::StyleChanged { entity, .. }
            | CombatRecord::AutocastChanged { entity, .. }
            | CombatRecord::Ate { entity, .. }
            | CombatRecord::Equipped { entity, .. }
            | CombatRecord::EquipRefused { entity, .. }
            | CombatRecord::AutocastRefused { entity, .. }
            | CombatRecord::Saved { entity } => (entity, None),
            CombatRecord::Engaged { attacker, target }
            | CombatRecord::Attack {
                attacker, target, ..
            }
            | CombatRecord::AttackFailed {
                attacker, target, ..
            } => (attacker, Some(target)),
            CombatRecord::TargetChanged { entity, target, .. } => (entity, target),
            CombatRecord::Chase { chaser, target, .. } => (chaser, Some(target)),
            CombatRecord::WeaveQueued { entity, target, .. }
            | CombatRecord::WeaveHeld { entity, target, .. } => (entity, Some(target)),
        }
    }

    fn describe(&self, cx: &RenderCx<'_>) -> String {
        let names = Names(cx.catalog().section::<CombatDefs>());
        let name = |e: Entity| cx.name(e);
        match self {
            CombatRecord::Engaged { target, .. } => format!("engage -> {}", name(*target)),
            CombatRecord::TargetChanged {
                target, channel, ..
            } => match (target, channel) {
                (Some(t), Some(c)) => format!("target {} ({c:?})", name(*t)),
                (Some(t), None) => format!("target {}", name(*t)),
                (None, _) => "target cleared".to_owned(),
            },
            CombatRecord::Attack {
                target,
                outcome,
                damage_type,
                weaved,
                spell,
                ..
            } => {
                let verb = match (spell, weaved) {
                    (None, _) => "swing".to_owned(),
                    (Some(s), true) => format!("weave {}", names.spell(*s)),
                    (Some(s), false) => format!("cast {}", names.spell(*s)),
                };
                let result = match outcome {
                    AttackOutcome::Hit(amount) => format!("hit {amount} {damage_type:?}"),
                    AttackOutcome::Miss => format!("miss {damage_type:?}"),
                    AttackOutcome::Blocked(amount, reason) => format!(
                        "blocked {amount} {damage_type:?} ({})",
                        block_reason(cx, *reason)
                    ),
                };
                format!("{verb} -> {}  {result}", name(*target))
            }
            CombatRecord::AttackFailed { target, reason, .. } => format!(
                "attack -> {} failed: {}",
                name(*target),
                cx.tag_message(*reason)
            ),
            CombatRecord::CooldownStamped {
                cooldown, duration, ..
            } => format!("cooldown {} {duration}", cx.tag(*cooldown)),
            CombatRecord::IntervalClamped { computed, used, .. } => {
                format!("interval clamped {computed} -> {used}")
            }
            CombatRecord::Chase { target, phase, .. } => match phase {
                ChasePhase::Begin(to) => format!(
                    "chase begin -> {} to ({:.1}, {:.1})",
                    name(*target),
                    to.x,
                    to.y
                ),
                ChasePhase::Reissue(to) => format!(
                    "chase reissue -> {} to ({:.1}, {:.1})",
                    name(*target),
                    to.x,
                    to.y
                ),
                ChasePhase::End => format!("chase end -> {}", name(*target)),
            },
            CombatRecord::WeaveQueued {
                target,
                spell,
                replaced,
                ..
            } => {
                let mut what = format!("weave queued {} -> {}", names.spell(*spell), name(*target));
                if let Some(old) = replaced {
                    let _ = write!(what, " (replaces {})", names.spell(*old));
                }
                what
            }
            CombatRecord::WeaveHeld { target, spell, .. } => format!(
                "weave held {} ({} beyond its range)",
                names.spell(*spell),
                name(*target)
            ),
            CombatRecord::WeaveDropped { spell, .. } => {
                format!("weave dropped {}", names.spell(*spell))
            }
            CombatRecord::AmmoSpent { left, .. } => format!("ammo spent ({left} left)"),
            CombatRecord::RunesSpent { spell, .. } => {
                format!("runes spent for {}", names.spell(*spell))
            }
            CombatRecord::Xp {
                skill, centi_xp, ..
            } => format!("xp {skill:?} +{}.{:02}", centi_xp / 100, centi_xp % 100),
            CombatRecord::LevelUp { skill, level, .. } => format!("level up {skill:?} {level}"),
            CombatRecord::EnteredCombat { .. } => "enter combat".to_owned(),
            CombatRecord::Died { kept, stored, .. } => format!(
                "died: kept [{}] stored [{}]",
                item_list(&names, kept),
                item_list(&names, stored)
            ),
            CombatRecord::Respawned { at, .. } => {
                format!("respawn at ({:.1}, {:.1})", at.x, at.y)
            }
            CombatRecord::StyleChanged { style, .. } => format!("style {}", cx.tag(*style)),
            CombatRecord::AutocastChanged { spell, .. } => match spell {
                Some(s) => format!("autocast {}", names.spell(*s)),
                None => "autocast cleared".to_owned(),
            },
            CombatRecord::Ate { item, .. } => format!("eat {}", names.item(*item)),
            CombatRecord::Equipped { item, .. } => format!("equip {}", names.item(*item)),
            CombatRecord::EquipRefused { item, reason, .. } => format!(
                "equip {} refused: {}",
                names.item(*item),
                cx.tag_message(*reason)
            ),
            CombatRecord::AutocastRefused { spell, reason, .. } => format!(
                "autocast {} refused: {}",
                spell.map_or("(none)", |s| names.spell(s)),
                cx.tag_message(*reason)
            ),
            CombatRecord::Saved { .. } => "saved profile".to_owned(),
        }
    }

    fn json(&self, cx: &RenderCx<'_>, o: &mut JsonFields) {
        let names = Names(cx.catalog().section::<CombatDefs>());
        let tag_name = |tag: Option<Tag>| tag.map_or("?", |t| cx.tag(t));
        match self {
            CombatRecord::Engaged { .. }
            | CombatRecord::EnteredCombat { .. }
            | CombatRecord::Saved { .. } => {}
            CombatRecord::TargetChanged { channel, .. } => o.opt_str(
                "channel",
                channel.map(|c| tag_name(names.kind_tag(c, |c, d| c.tag(&d.tags)))),
            ),
            CombatRecord::Attack {
                outcome,
                damage_type,
                weaved,
                spell,
                ..
            } => {
                match outcome {
                    AttackOutcome::Hit(amount) => {
                        o.str("outcome", "hit");
                        o.int("amount", u64::from(*amount));
                    }
                    AttackOutcome::Miss => {
                        o.str("outcome", "miss");
                        o.int("amount", 0);
                    }
                    AttackOutcome::Blocked(amount, reason) => {
                        o.str("outcome", "blocked");
                        o.int("amount", u64::from(*amount));
                        o.str("blocked", &block_reason(cx, *reason));
                    }
                }
                let type_tag = names.kind_tag(*damage_type, |t, d| t.tag(&d.tags));
                o.str("damage_type", tag_name(type_tag));
                o.bool("weaved", *weaved);
                o.opt_str("spell", spell.map(|s| names.spell(s)));
            }
            CombatRecord::AttackFailed { reason, .. } => {
                o.str("reason", cx.tag(*reason));
                o.str("message", cx.tag_message(*reason));
            }
            CombatRecord::CooldownStamped {
                cooldown, duration, ..
            } => {
                o.str("cooldown", cx.tag(*cooldown));
                o.num("duration", duration.as_secs_f64());
            }
            CombatRecord::IntervalClamped { computed, used, .. } => {
                o.num("computed", computed.as_secs_f64());
                o.num("used", used.as_secs_f64());
            }
            CombatRecord::Chase { phase, .. } => match phase {
                ChasePhase::Begin(to) | ChasePhase::Reissue(to) => {
                    let begin = matches!(phase, ChasePhase::Begin(_));
                    o.str("phase", if begin { "begin" } else { "reissue" });
                    o.num("x", to.x);
                    o.num("y", to.y);
                }
                ChasePhase::End => o.str("phase", "end"),
            },
            CombatRecord::WeaveQueued {
                spell, replaced, ..
            } => {
                o.str("spell", names.spell(*spell));
                o.opt_str("replaced", replaced.map(|s| names.spell(s)));
            }
            CombatRecord::WeaveHeld { spell, .. }
            | CombatRecord::WeaveDropped { spell, .. }
            | CombatRecord::RunesSpent { spell, .. } => o.str("spell", names.spell(*spell)),
            CombatRecord::AmmoSpent { left, .. } => o.int("left", u64::from(*left)),
            CombatRecord::Xp {
                skill, centi_xp, ..
            } => {
                o.str(
                    "skill",
                    tag_name(names.kind_tag(*skill, |s, d| s.tag(&d.tags))),
                );
                o.num("xp", *centi_xp as f64 / 100.0);
            }
            CombatRecord::LevelUp { skill, level, .. } => {
                o.str(
                    "skill",
                    tag_name(names.kind_tag(*skill, |s, d| s.tag(&d.tags))),
                );
                o.int("level", u64::from(*level));
            }
            CombatRecord::Died { kept, stored, .. } => {
                let item = |o: &mut JsonFields, &(i, q): &(ItemId, u32)| {
                    o.str("item", names.item(i));
                    o.int("quantity", u64::from(q));
                };
                o.list("kept", kept, item);
                o.list("stored", stored, item);
            }
            CombatRecord::Respawned { at, .. } => {
                o.num("x", at.x);
                o.num("y", at.y);
            }
            CombatRecord::StyleChanged { style, .. } => o.str("style", cx.tag(*style)),
            CombatRecord::AutocastChanged { spell, .. } => {
                o.opt_str("spell", spell.map(|s| names.spell(s)))
            }
            CombatRecord::Ate { item, .. } | CombatRecord::Equipped { item, .. } => {
                o.str("item", names.item(*item))
            }
            CombatRecord::EquipRefused { item, reason, .. } => {
                o.str("item", names.item(*item));
                o.str("reason", cx.tag(*reason));
                o.str("message", cx.tag_message(*reason));
            }
            CombatRecord::AutocastRefused { spell, reason, .. } => {
                o.opt_str("spell", spell.map(|s| names.spell(s)));
                o.str("reason", cx.tag(*reason));
                o.str("message", cx.tag_message(*reason));
            }
        }
    }
}

fn item_list(names: &Names<'_>, items: &[(ItemId, u32)]) -> String {
    let names: Vec<String> = items
        .iter()
        .map(|&(item, quantity)| match quantity {
            1 => names.item(item).to_owned(),
            n => format!("{} x{n}", names.item(item)),
        })
        .collect();
    names.join(", ")
}

/// Why the damage of a hit was refused, for both renderers.
fn block_reason(cx: &RenderCx<'_>, reason: crate::trace::BlockReason) -> String {
    match reason {
        crate::trace::BlockReason::Immune { by } => format!("{}: {}", reason.name(), cx.effect(by)),
        _ => reason.name().to_owned(),
    }
}
