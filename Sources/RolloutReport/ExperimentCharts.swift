import Foundation
import RolloutModel

/// The charts of an experiment's page (docs/report.md, "An experiment's page"), drawn as the locale
/// page's are: the legend above, HTML labels around an SVG drawing of 0 to 100 on both axes.
extension ReportCharts {
    /// A treatment's relative lift over the control, cumulative to each day, with the running
    /// intersection of its anytime-valid bounds as a band and the zero line; over `days`, the
    /// experiment's days to its horizon. The y axis covers zero, every lift and the newest bound:
    /// an earlier, wider bound runs off the drawing's edge, drawn to it.
    static func lift(
        _ timeline: [ExperimentAnalysis.Point], days: ClosedRange<Int>, treatment: String, control: String,
        metric: String, alpha: Double
    ) -> Markup {
        let (xTicks, xs) = dayTicks(from: days.lowerBound, to: days.upperBound)
        let lifts = timeline.compactMap { point in point.lift.map { (Double(point.day), $0) } }
        var values = lifts.map(\.1) + [0]
        if let last = timeline.last, last.upper.isFinite { values += [last.lower, last.upper] }
        var (low, high) = (values.min()!, values.max()!)
        if high - low < 0.02 { (low, high) = (low - 0.01, high + 0.01) }
        let (yTicks, ys) = percentTicks(low, high, signed: true)
        let plot = Plot(xs: xs, ys: ys)
        func clamped(_ v: Double) -> Double { min(max(v, ys.lowerBound), ys.upperBound) }
        // The running intersection only narrows: once its upper end is finite it stays so.
        let bounded = timeline.filter { $0.upper.isFinite }
        var marks: [Markup] = []
        if !bounded.isEmpty {
            let band =
                bounded.map { (Double($0.day), clamped($0.upper)) }
                + bounded.reversed().map { (Double($0.day), clamped($0.lower)) }
            marks.append(.empty("polygon", ["class": "lift-band", "points": points(band, plot)]))
        }
        let zero = coordinate(plot.y(0))
        marks.append(.empty("line", ["class": "zero", "x1": "0", "y1": zero, "x2": "100", "y2": zero]))
        marks.append(.empty("polyline", ["class": "series lift", "points": points(lifts, plot)]))
        for (day, lift) in lifts {
            let (x, y) = (coordinate(plot.x(day)), coordinate(plot.y(lift)))
            marks.append(.empty("line", ["class": "dot lift", "x1": x, "y1": y, "x2": x, "y2": y]))
        }
        let keys = [
            Key(class: "lift", text: "\(treatment) over \(control): lift of \(metric), cumulative"),
            Key(class: "lift-band", text: "\(level(alpha)) bound, valid at every look"),
        ]
        return chart(
            "lift-\(treatment)",
            title: "relative lift of \(metric), \(treatment) over \(control), cumulative, with its anytime-valid bound",
            plot, keys, x: xTicks, y: yTicks, marks)
    }

    /// Each variant's exposures per day (not cumulative), over `span`; `names` label `versions`,
    /// the control first.
    static func exposures(
        _ days: [ExperimentContent.DayExposures], versions: [Int], names: [String], span: ClosedRange<Int>
    ) -> Markup {
        let (xTicks, xs) = dayTicks(from: span.lowerBound, to: span.upperBound)
        let most = days.flatMap { $0.exposures.values }.max() ?? 0
        let (yTicks, ys) = countTicks(Double(most))
        let plot = Plot(xs: xs, ys: ys)
        var marks: [Markup] = []
        var keys: [Key] = []
        for (index, version) in versions.enumerated() {
            let series = days.map { (Double($0.day), Double($0.exposures[version] ?? 0)) }
            let name = "variant-\(index % 4)"
            marks.append(.empty("polyline", ["class": "series \(name)", "points": points(series, plot)]))
            for (day, count) in series {
                let (x, y) = (coordinate(plot.x(day)), coordinate(plot.y(count)))
                marks.append(.empty("line", ["class": "dot \(name)", "x1": x, "y1": y, "x2": x, "y2": y]))
            }
            keys.append(Key(class: name, text: Markup(names[index])))
        }
        return chart(
            "exposures", title: "exposures per day of each variant", plot, keys, x: xTicks, y: yTicks, marks)
    }

    /// The y ticks of a count axis from zero to `high` (whole numbers), and the range they span.
    static func countTicks(_ high: Double) -> ([Tick], ClosedRange<Double>) {
        let (values, step) = niceTicks(0, max(high, 5))
        return (values.map { Tick(value: $0, label: countLabel($0, step: step)) }, values.first!...values.last!)
    }

    /// A count on an axis of round steps: `1,500`, `20k`, `1.5M`, short enough for the y labels'
    /// column.
    static func countLabel(_ value: Double, step: Double) -> String {
        func scaled(_ unit: Double, _ suffix: String) -> String {
            let decimals = max(0, -Int((log10(step / unit) + 1e-9).rounded(.down)))
            var text = String(format: "%.\(decimals)f", value / unit)
            while text.contains(".") && (text.hasSuffix("0") || text.hasSuffix(".")) { text.removeLast() }
            return text + suffix
        }
        if value == 0 { return "0" }
        if step >= 100_000 && value >= 1_000_000 { return scaled(1_000_000, "M") }
        if step >= 1_000 { return scaled(1_000, "k") }
        return grouped(Int(value.rounded()))
    }

    /// A confidence level from its error budget: `95.0%`, `97.50%` with `digits` 2.
    static func level(_ alpha: Double, digits: Int = 1) -> String {
        String(format: "%.\(digits)f%%", (1 - alpha) * 100)
    }

    /// A relative lift as `experiment show` prints it: `+10.0%`, `-3.2%`, `+inf`, `-` without one.
    static func liftText(_ value: Double?) -> String {
        guard let value else { return "-" }
        if value.isInfinite { return "+inf" }
        return String(format: "%+.1f%%", value * 100)
    }
}
