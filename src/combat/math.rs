//! The damage formula: one canonical implementation every attack path uses.
//!
//! OSRS-derived, with the 5-skill model (attack and strength both come from
//! the weapon skill: Melee, Ranged or Magic).
//!
//! ```
//! use gaskit::combat::math::*;
//!
//! let attack = attack_roll(effective_level(60, 3), 40);
//! let defense = defense_roll(effective_level(50, 0), 30);
//! let chance = hit_chance(attack, defense);
//! assert!(chance > 0.5 && chance < 1.0);
//! assert_eq!(max_hit(effective_level(60, 3), 40), 12);
//! ```

use rand_chacha::rand_core::Rng;

use crate::rounding;

/// Effective level: `base + style bonus + 8`.
pub fn effective_level(base_level: u32, style_bonus: u32) -> u32 {
    base_level + style_bonus + 8
}

/// Attack roll: `effective attack level × (attack bonus + 64)`.
///
/// A bonus below −64 gives a negative roll; [`hit_chance`] treats negative
/// rolls as zero, so such an attack never hits.
pub fn attack_roll(effective_attack_level: u32, attack_bonus: i32) -> i64 {
    i64::from(effective_attack_level) * (i64::from(attack_bonus) + 64)
}

/// Defense roll: `effective defense level × (defense bonus + 64)`.
///
/// A bonus below −64 gives a negative roll; [`hit_chance`] treats it as
/// zero, so such a defender is hit by any attack with a positive roll
/// (chance `1 − 2 / (2 × (attack + 1))`).
pub fn defense_roll(effective_defense_level: u32, defense_bonus: i32) -> i64 {
    i64::from(effective_defense_level) * (i64::from(defense_bonus) + 64)
}

/// The chance to hit: if `attack > defense`,
/// `1 − (defense + 2) / (2 × (attack + 1))`, else
/// `attack / (2 × (defense + 1))`. Strictly greater: equal rolls use the
/// second branch. Negative rolls count as zero; the result is always in
/// `[0, 1]`.
pub fn hit_chance(attack_roll: i64, defense_roll: i64) -> f64 {
    let attack = attack_roll.max(0) as f64;
    let defense = defense_roll.max(0) as f64;
    let chance = if attack > defense {
        1.0 - (defense + 2.0) / (2.0 * (attack + 1.0))
    } else {
        attack / (2.0 * (defense + 1.0))
    };
    chance.clamp(0.0, 1.0)
}

/// Max hit: `floor(0.5 + effective strength level × (strength bonus + 64) / 640)`,
/// never negative.
pub fn max_hit(effective_strength_level: u32, strength_bonus: i32) -> u32 {
    let product = i64::from(effective_strength_level) * (i64::from(strength_bonus) + 64);
    let hit = rounding::floor(0.5 + product as f64 / 640.0);
    if hit <= 0.0 {
        0
    } else {
        hit as u32
    }
}

/// A spell's max hit: `floor(max_damage × (1 + magic damage % / 100))`,
/// never negative. A hit deals a uniform amount in `[base_damage, max hit]`.
pub fn spell_max_hit(max_damage: u32, magic_damage_percent: f64) -> u32 {
    let boosted = rounding::floor(f64::from(max_damage) * (1.0 + magic_damage_percent / 100.0));
    if boosted.is_finite() && boosted > 0.0 {
        boosted.min(f64::from(u32::MAX)) as u32
    } else {
        0
    }
}

/// Rolls accuracy: `true` with probability `chance`, from one 53-bit draw.
pub fn roll_hit(rng: &mut impl Rng, chance: f64) -> bool {
    let unit = (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64);
    unit < chance
}

/// A uniform integer in `[low, high]` (inclusive) without modulo bias:
/// draws that fall in the incomplete last bucket are rejected and redrawn.
pub fn roll_between(rng: &mut impl Rng, low: u32, high: u32) -> u32 {
    if high <= low {
        return low;
    }
    let span = u64::from(high - low) + 1;
    let zone = u64::MAX - (u64::MAX % span);
    loop {
        let draw = rng.next_u64();
        if draw < zone {
            return low + (draw % span) as u32;
        }
    }
}

/// A damage roll on a hit: uniform in `[0, max_hit]`.
pub fn roll_damage(rng: &mut impl Rng, max_hit: u32) -> u32 {
    roll_between(rng, 0, max_hit)
}
