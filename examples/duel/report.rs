//! `--report`: the fight as one self-contained picture, drawn with
//! plotters' SVG backend. One panel per fighter, time on the x axis:
//!
//! - the health curve (one line per fighter);
//! - above it, one circle per attack on the row of its kind (swing, cast,
//!   weave), coloured by damage type, filled for a hit and sized by its
//!   damage, hollow for a miss or a blocked hit;
//! - under the circles, each attack cooldown window as a bar, alternating
//!   between two heights, so a window that ends late (a lost tick) or one
//!   cut short shows as a gap or an overlap;
//! - under the curve, bars for the spans spent chasing, stunned or in a
//!   modal; deaths and respawns as vertical marks.
//!
//! A legend sits at the bottom. Nothing in the picture needs a script or a
//! font file: text stays SVG text.

use plotters::coord::Shift;
use plotters::prelude::*;

use gaskit::combat::{AttackOutcome, DamageType};
use gaskit::scenario::ScenarioRun;
use gaskit::{SimTime, TraceEvent};

use crate::timeline::{self, AttackKind, FighterTimeline};

const WIDTH: u32 = 1200;
const PANEL_HEIGHT: u32 = 250;
const TITLE_HEIGHT: u32 = 40;
const LEGEND_HEIGHT: u32 = 110;
const FONT: &str = "sans-serif";

/// Heights within a panel, as fractions of the fighter's top health.
const SWING_ROW: f64 = 1.45;
const CAST_ROW: f64 = 1.35;
const WEAVE_ROW: f64 = 1.25;
const COOLDOWN_ROWS: [(f64, f64); 2] = [(1.08, 1.12), (1.13, 1.17)];
const CHASE_ROW: (f64, f64) = (-0.10, -0.04);
const STUN_ROW: (f64, f64) = (-0.19, -0.13);
const MODAL_ROW: (f64, f64) = (-0.28, -0.22);
const Y_RANGE: (f64, f64) = (-0.32, 1.58);

/// The health curves' colour: what tells them from the axes (tests look
/// for it).
pub const HEALTH: RGBColor = RGBColor(40, 40, 40);
const COOLDOWN: [RGBColor; 2] = [RGBColor(150, 150, 150), RGBColor(95, 95, 95)];
const CHASE: RGBColor = RGBColor(240, 150, 40);
const STUN: RGBColor = RGBColor(150, 60, 180);
const MODAL: RGBColor = RGBColor(120, 160, 200);
pub const DEATH: RGBColor = RGBColor(210, 30, 30);
pub const RESPAWN: RGBColor = RGBColor(30, 160, 60);

/// How the SVG writes `colour` (`#RRGGBB`).
#[cfg(test)]
pub fn svg_colour(colour: RGBColor) -> String {
    format!("#{:02X}{:02X}{:02X}", colour.0, colour.1, colour.2)
}

/// The colour of a damage type.
fn colour(damage_type: DamageType) -> RGBColor {
    match damage_type {
        DamageType::Stab => RGBColor(0, 150, 150),
        DamageType::Slash => RGBColor(220, 50, 50),
        DamageType::Crush => RGBColor(140, 90, 40),
        DamageType::Ranged => RGBColor(40, 150, 40),
        DamageType::Magic => RGBColor(60, 80, 220),
    }
}

fn failed(error: impl std::fmt::Display) -> String {
    format!("error: drawing the report: {error}")
}

/// The report for `run` as SVG, or as an HTML page holding it inline.
pub fn draw(
    run: &ScenarioRun,
    events: &[TraceEvent],
    end: SimTime,
    html: bool,
) -> Result<String, String> {
    let fighters = timeline::read(run, events, end);
    // A little room after the end, so what happens at the last instant
    // (a death) is not drawn on the frame.
    let seconds = end.as_secs_f64().max(1.0) * 1.02;
    let height = TITLE_HEIGHT + PANEL_HEIGHT * fighters.len().max(1) as u32 + LEGEND_HEIGHT;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE).map_err(failed)?;
        let (title, rest) = root.split_vertically(TITLE_HEIGHT);
        let (panels, legend) = rest.split_vertically(PANEL_HEIGHT * fighters.len().max(1) as u32);
        let heading = format!(
            "gaskit fight report: seed {}, {} fighters, {:.1} s",
            run.scenario().seed,
            fighters.len(),
            end.as_secs_f64()
        );
        title.titled(&heading, (FONT, 22)).map_err(failed)?;
        for (fighter, area) in fighters
            .iter()
            .zip(panels.split_evenly((fighters.len().max(1), 1)))
        {
            panel(&area, fighter, seconds)?;
        }
        draw_legend(&legend)?;
        root.present().map_err(failed)?;
    }
    if html {
        Ok(format!(
            "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>gaskit fight report</title></head>\n<body>\n{svg}\n</body></html>\n"
        ))
    } else {
        Ok(svg)
    }
}

/// One fighter's panel.
fn panel(
    area: &DrawingArea<SVGBackend, Shift>,
    fighter: &FighterTimeline,
    seconds: f64,
) -> Result<(), String> {
    let top = fighter.max_health;
    let y = |fraction: f64| fraction * top;
    let hits = fighter
        .attacks
        .iter()
        .filter(|a| matches!(a.outcome, AttackOutcome::Hit(_)))
        .count();
    let dealt: u32 = fighter.attacks.iter().map(|a| a.outcome.dealt()).sum();
    let caption = format!(
        "{}{}: {} attacks, {} hits, {} damage",
        fighter.name,
        fighter
            .target
            .as_ref()
            .map_or_else(String::new, |t| format!(" attacking {t}")),
        fighter.attacks.len(),
        hits,
        dealt
    );
    let mut chart = ChartBuilder::on(area)
        .caption(caption, (FONT, 16))
        .margin(8)
        .x_label_area_size(28)
        .y_label_area_size(56)
        .build_cartesian_2d(0.0..seconds, y(Y_RANGE.0)..y(Y_RANGE.1))
        .map_err(failed)?;
    let label_top = top;
    chart
        .configure_mesh()
        .x_desc("time (s)")
        .y_desc("health")
        .y_label_formatter(&|v| {
            if *v < 0.0 || *v > label_top {
                String::new()
            } else {
                format!("{v:.0}")
            }
        })
        .light_line_style(RGBColor(235, 235, 235))
        .draw()
        .map_err(failed)?;

    // Spans under the curve, cooldown windows above it.
    let bar = |(from, to): (f64, f64), (lo, hi): (f64, f64), colour: RGBAColor| {
        Rectangle::new(
            [(from, y(lo)), (to.max(from + seconds / 2000.0), y(hi))],
            colour.filled(),
        )
    };
    for (spans, row, colour) in [
        (&fighter.chases, CHASE_ROW, CHASE),
        (&fighter.stuns, STUN_ROW, STUN),
        (&fighter.modals, MODAL_ROW, MODAL),
    ] {
        chart
            .draw_series(spans.iter().map(|&span| bar(span, row, colour.mix(0.8))))
            .map_err(failed)?;
    }
    chart
        .draw_series(
            fighter
                .cooldowns
                .iter()
                .enumerate()
                .map(|(i, &window)| bar(window, COOLDOWN_ROWS[i % 2], COOLDOWN[i % 2].mix(0.9))),
        )
        .map_err(failed)?;
    let mark =
        |at: f64, colour: RGBColor| bar((at, at + seconds / 600.0), Y_RANGE, colour.mix(0.9));
    chart
        .draw_series(fighter.deaths.iter().map(|&at| mark(at, DEATH)))
        .map_err(failed)?;
    chart
        .draw_series(fighter.respawns.iter().map(|&at| mark(at, RESPAWN)))
        .map_err(failed)?;

    // The health curve: the panel's one line.
    chart
        .draw_series(LineSeries::new(
            fighter.health.iter().copied(),
            HEALTH.stroke_width(2),
        ))
        .map_err(failed)?;

    // One circle per attack.
    chart
        .draw_series(fighter.attacks.iter().map(|attack| {
            let row = match attack.kind {
                AttackKind::Swing => SWING_ROW,
                AttackKind::Cast => CAST_ROW,
                AttackKind::Weave => WEAVE_ROW,
            };
            let colour = colour(attack.damage_type);
            match attack.outcome {
                AttackOutcome::Hit(amount) => {
                    let radius = (3.0 + 1.6 * f64::from(amount).sqrt()).min(13.0) as i32;
                    Circle::new((attack.at, y(row)), radius, colour.filled())
                }
                _ => Circle::new((attack.at, y(row)), 4, colour.stroke_width(2)),
            }
        }))
        .map_err(failed)?;

    // Row names at the left edge.
    let names = [
        ("swing", SWING_ROW),
        ("cast", CAST_ROW),
        ("weave", WEAVE_ROW),
        ("cooldown", COOLDOWN_ROWS[1].1),
        ("chase", CHASE_ROW.1),
        ("stun", STUN_ROW.1),
        ("modal", MODAL_ROW.1),
    ];
    chart
        .draw_series(names.iter().map(|&(name, row)| {
            Text::new(
                name,
                (seconds * 0.003, y(row)),
                (FONT, 11).into_font().color(&RGBColor(90, 90, 90)),
            )
        }))
        .map_err(failed)?;
    Ok(())
}

/// The legend: damage-type colours, the meaning of circles, bars and marks.
fn draw_legend(area: &DrawingArea<SVGBackend, Shift>) -> Result<(), String> {
    let text = |s: &str, x: i32, y: i32| Text::new(s.to_owned(), (x, y), (FONT, 13).into_font());
    let swatch = |x: i32, y: i32, colour: RGBColor| {
        Rectangle::new([(x, y), (x + 14, y + 14)], colour.filled())
    };
    let mut x = 60;
    for damage_type in DamageType::ALL {
        area.draw(&swatch(x, 12, colour(*damage_type)))
            .map_err(failed)?;
        area.draw(&text(&format!("{damage_type:?}"), x + 20, 12))
            .map_err(failed)?;
        x += 110;
    }
    area.draw(&text(
        "circles: one per attack, on the row of its kind; filled = hit (larger = more damage), hollow = miss or blocked",
        60,
        40,
    ))
    .map_err(failed)?;
    let mut x = 60;
    for (name, colour) in [
        ("cooldown window (alternating heights)", COOLDOWN[1]),
        ("chasing", CHASE),
        ("stunned", STUN),
        ("modal open", MODAL),
        ("death", DEATH),
        ("respawn", RESPAWN),
    ] {
        area.draw(&swatch(x, 66, colour)).map_err(failed)?;
        area.draw(&text(name, x + 20, 66)).map_err(failed)?;
        x += if name.len() > 20 { 290 } else { 130 };
    }
    Ok(())
}
