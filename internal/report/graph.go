package report

import (
	"github.com/skillkit/skillkit/graph"
)

// graphView is the graph of what ran, drawn as SVG without a layout
// engine: the phases top to bottom in their order, the loop as a box of
// its actions, each coloured by what the run did with it.
type graphView struct {
	Width, Height int
	Boxes         []box
	Arrows        []arrow
}

type box struct {
	X, Y, W, H, TextX, TextY int
	Label, Title             string
	Fill, Stroke, Text       string
	// Loop is the box that holds the actions: its label is at its top.
	Loop bool
}

type arrow struct{ X, Y1, Y2 int }

// Graph geometry, in SVG pixels.
const (
	phaseWidth  = 420
	phaseHeight = 30
	chipWidth   = 200
	chipHeight  = 26
	chipsPerRow = 4
	gap         = 10
	arrowLength = 22
	graphMargin = 10
)

func drawGraph(g *graph.Graph) *graphView {
	v := &graphView{Width: 2*graphMargin + chipsPerRow*chipWidth + (chipsPerRow+1)*gap}
	y := graphMargin
	node := func(n graph.Node, x, y, w, h int) box {
		o, ok := g.Run[n.ID]
		title := n.Label + ": " + string(o.Status)
		if !ok {
			// The loop of an autonomous skill is no unit of the run.
			o.Status, title = graph.NotReached, n.Label
		}
		st := o.Status
		return box{X: x, Y: y, W: w, H: h, TextX: x + 10, TextY: y + h/2 + 5, Label: label(g.Label(n), w/8),
			Title: title, Fill: st.Fill(), Stroke: st.Stroke(), Text: st.Text()}
	}
	phases := g.Phases
	if len(phases) == 0 && len(g.Actions) > 0 {
		// An autonomous skill is its loop alone.
		phases = []graph.Node{{ID: "actions", Label: "orchestrator loop", Loop: true}}
	}
	for i, p := range phases {
		if i > 0 {
			v.Arrows = append(v.Arrows, arrow{X: graphMargin + phaseWidth/2, Y1: y, Y2: y + arrowLength})
			y += arrowLength
		}
		if !p.Loop || len(g.Actions) == 0 {
			v.Boxes = append(v.Boxes, node(p, graphMargin, y, phaseWidth, phaseHeight))
			y += phaseHeight
			continue
		}
		var actions []graph.Node
		for _, a := range g.Actions {
			if a.Unit != "" {
				actions = append(actions, a)
			}
		}
		rows := (len(actions) + chipsPerRow - 1) / chipsPerRow
		loop := node(p, graphMargin, y, v.Width-2*graphMargin, 30+rows*(chipHeight+gap))
		loop.Loop, loop.TextY = true, y+18
		v.Boxes = append(v.Boxes, loop)
		for j, a := range actions {
			x := graphMargin + gap + (j%chipsPerRow)*(chipWidth+gap)
			v.Boxes = append(v.Boxes, node(a, x, y+26+(j/chipsPerRow)*(chipHeight+gap), chipWidth, chipHeight))
		}
		y += loop.H
	}
	v.Height = y + graphMargin
	return v
}
