package plot

import (
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
)

// axis maps data values on one axis to pixels and holds its ticks.
type axis struct {
	log    bool
	lo, hi float64   // data range shown
	ticks  []float64 // major ticks, ascending, labelled and gridded
	minor  []float64 // minor ticks (log axes), gridded only
	labels []string  // one per major tick
	p0, p1 float64   // pixel positions of lo and hi
}

// pos returns the pixel position of v.
func (a *axis) pos(v float64) float64 {
	t, l, h := v, a.lo, a.hi
	if a.log {
		t, l, h = math.Log10(t), math.Log10(l), math.Log10(h)
	}
	return a.p0 + (t-l)/(h-l)*(a.p1-a.p0)
}

// newAxis chooses the range and ticks of an axis that must show every value
// in vals and explicit (at least one value, all finite and, on a log axis,
// > 0). explicit, when non-nil, gives the ticks; otherwise
// about target ticks are chosen. format, when non-nil, labels the ticks.
// headroom widens the data range of an automatic linear axis by that
// fraction of its span at each end, but not across zero.
func newAxis(vals []float64, log bool, explicit []float64, target int, format func(float64) string, headroom float64) (*axis, error) {
	vals = append(slices.Clip(vals), explicit...)
	lo, hi := slices.Min(vals), slices.Max(vals)
	a := &axis{log: log}
	var labelOf func(float64) string
	switch {
	case log:
		l0, l1 := math.Log10(lo), math.Log10(hi)
		if l0 == l1 {
			l0, l1 = l0-0.5, l1+0.5
		}
		pad := 0.03 * (l1 - l0)
		a.lo, a.hi = math.Pow(10, l0-pad), math.Pow(10, l1+pad)
		if !(a.lo > 0) || math.IsInf(a.hi, 0) {
			return nil, errors.New("plot: log axis range too large")
		}
		if explicit == nil {
			a.ticks, a.minor = logTicks(a.lo, a.hi)
		}
		labelOf = plainLabel
	case explicit != nil:
		if lo == hi {
			d := math.Abs(lo) * 0.1
			if d == 0 {
				d = 1
			}
			lo, hi = lo-d, hi+d
		}
		a.lo, a.hi = lo, hi
		labelOf = plainLabel
	default:
		if d := headroom * (hi - lo); d > 0 && !math.IsInf(d, 0) {
			nlo, nhi := lo-d, hi+d
			if lo >= 0 && nlo < 0 {
				nlo = 0
			}
			if hi <= 0 && nhi > 0 {
				nhi = 0
			}
			lo, hi = nlo, nhi
		}
		ticks, step, err := linearTicks(lo, hi, target)
		if err != nil {
			return nil, err
		}
		a.ticks = ticks
		a.lo, a.hi = ticks[0], ticks[len(ticks)-1]
		labelOf = linearLabeller(ticks, step)
	}
	if d := a.hi - a.lo; !(d > 0) || math.IsInf(d, 0) {
		return nil, errors.New("plot: axis range cannot be drawn at this magnitude")
	}
	if explicit != nil {
		a.ticks = slices.Compact(slices.Sorted(slices.Values(explicit)))
	}
	if format != nil {
		labelOf = func(v float64) string { return sanitize(format(v)) }
	}
	for _, t := range a.ticks {
		a.labels = append(a.labels, labelOf(t))
	}
	return a, nil
}

// niceStep returns the 1-2-5 step (times a power of ten) nearest above raw.
func niceStep(raw float64) float64 {
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	switch f := raw / mag; {
	case f <= 1:
		return mag
	case f <= 2:
		return 2 * mag
	case f <= 5:
		return 5 * mag
	}
	return 10 * mag
}

// linearTicks returns the ticks of a linear axis covering [lo, hi]: multiples
// of a 1-2-5 step from one at or below lo to one at or above hi. Of the steps
// giving between target-2 and target+3 ticks, the one whose ticks waste the
// least room beyond the data wins (then the one nearest target ticks).
func linearTicks(lo, hi float64, target int) ([]float64, float64, error) {
	if lo == hi {
		d := math.Abs(lo) * 0.1
		if d == 0 {
			d = 1
		}
		lo, hi = lo-d, hi+d
	}
	span := hi - lo
	if math.IsInf(span, 0) {
		return nil, 0, errors.New("plot: axis range too large")
	}
	span0 := func(step float64) (k0, k1 float64) {
		return math.Floor(lo/step + 1e-9), math.Ceil(hi/step - 1e-9)
	}
	step := niceStep(span / float64(target))
	best := -1.0
	mag := math.Pow(10, math.Floor(math.Log10(span/float64(target))))
	for _, m := range []float64{0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50} {
		s := m * mag
		k0, k1 := span0(s)
		n := int(k1-k0) + 1
		if n < max(3, target-2) || n > target+3 {
			continue
		}
		score := span/((k1-k0)*s) - 0.01*math.Abs(float64(n-target))
		if score > best {
			best, step = score, s
		}
	}
	k0, k1 := span0(step)
	if !(k1 > k0) || k1-k0 > 1000 || math.IsInf(k0*step, 0) || math.IsInf(k1*step, 0) {
		return nil, 0, errors.New("plot: axis range cannot be drawn at this magnitude")
	}
	var ticks []float64
	for k := k0; k <= k1; k++ {
		t := k * step
		if math.Abs(t) < step*1e-9 {
			t = 0
		}
		ticks = append(ticks, t)
	}
	return ticks, step, nil
}

// logTicks returns the major and minor ticks of a log axis over [lo, hi]:
// powers of ten when at least two fall in the range (every second, third...
// one when there are more than eight; minor ticks at 2..9 times each power
// when every power is a major tick), else 1-2-5 or 1..9 multiples of powers
// of ten, else linear 1-2-5 steps.
func logTicks(lo, hi float64) (major, minor []float64) {
	const eps = 1e-9
	k0 := int(math.Ceil(math.Log10(lo) - eps))
	k1 := int(math.Floor(math.Log10(hi) + eps))
	if n := k1 - k0 + 1; n >= 2 {
		step := 1
		for (n+step-1)/step > 8 {
			step++
		}
		for k := k0; k <= k1; k++ {
			if (k%step+step)%step == 0 {
				major = append(major, math.Pow10(k))
			}
		}
		if step == 1 {
			for k := k0 - 1; k <= k1; k++ {
				for m := 2.0; m <= 9; m++ {
					if v := m * math.Pow10(k); v > lo && v < hi {
						minor = append(minor, v)
					}
				}
			}
		}
		return major, minor
	}
	for _, ms := range [][]float64{{1, 2, 5}, {1, 2, 3, 4, 5, 6, 7, 8, 9}} {
		var t []float64
		for k := k0 - 1; k <= k1; k++ {
			for _, m := range ms {
				if v := m * math.Pow10(k); v >= lo*(1-eps) && v <= hi*(1+eps) {
					t = append(t, v)
				}
			}
		}
		if len(t) >= 2 {
			return t, nil
		}
	}
	// Less than a ninth of a decade: linear steps inside the range.
	step := niceStep((hi - lo) / 5)
	for k := math.Ceil(lo / step); k*step <= hi; k++ {
		major = append(major, k*step)
	}
	return major, nil
}

// linearLabeller labels ticks at the given step with just enough decimals,
// or in exponent form when the values are very large or very small.
func linearLabeller(ticks []float64, step float64) func(float64) string {
	maxAbs := max(math.Abs(ticks[0]), math.Abs(ticks[len(ticks)-1]))
	if maxAbs >= 1e6 || maxAbs < 1e-3 {
		return plainLabel
	}
	decimals := max(0, -int(math.Floor(math.Log10(step)+1e-9)))
	return func(v float64) string {
		s := strconv.FormatFloat(v, 'f', decimals, 64)
		if strings.Trim(s, "-0.") == "" {
			s = strings.TrimPrefix(s, "-") // no "-0"
		}
		return s
	}
}

// plainLabel prints v with up to 6 significant digits: as a decimal between
// 0.001 and 1e6, else in exponent form like 1e-6 or 2.5e8.
func plainLabel(v float64) string {
	if v == 0 {
		return "0"
	}
	if a := math.Abs(v); a >= 1e-3 && a < 1e6 {
		v, _ = strconv.ParseFloat(strconv.FormatFloat(v, 'g', 6, 64), 64)
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	s := strconv.FormatFloat(v, 'e', 5, 64) // d.ddddde±xx
	mant, exp, _ := strings.Cut(s, "e")
	mant = strings.TrimRight(strings.TrimRight(mant, "0"), ".")
	sign := ""
	if exp[0] == '-' {
		sign = "-"
	}
	exp = strings.TrimLeft(exp[1:], "0")
	return mant + "e" + sign + exp
}
