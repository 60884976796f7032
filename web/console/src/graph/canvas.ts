// The Cytoscape canvas of the graph explorer: draws what GraphModel holds, places expanded
// neighbours around the node they came from, highlights a path, and reports taps. Settings
// keep 500 nodes and 1,000 edges interactive: no animation, edges hidden and a texture used
// while panning or zooming, labels only once they are large enough to read.

import cytoscape from "cytoscape";
import type { Core, ElementDefinition, EventObject } from "cytoscape";
import { layoutFor, ringPositions } from "./model";
import type { ElementData } from "./model";

export interface CanvasHandlers {
  onNode: (key: string) => void;
  onEdge: (id: string) => void;
}

const MAX_FIT_ZOOM = 1.5;

const STYLE = [
  {
    selector: "node",
    style: {
      "background-color": "data(colour)",
      label: "data(label)",
      "font-size": 10,
      "min-zoomed-font-size": 8,
      "text-valign": "bottom",
      "text-margin-y": 3,
      width: 18,
      height: 18,
    },
  },
  {
    selector: "edge",
    style: {
      width: "data(width)",
      "line-color": "#9aa5b1",
      "target-arrow-color": "#9aa5b1",
      "target-arrow-shape": "triangle",
      "curve-style": "haystack",
      label: "data(label)",
      "font-size": 8,
      "min-zoomed-font-size": 10,
      "text-rotation": "autorotate",
      color: "#52606d",
    },
  },
  // Arrows need a bezier; haystack is much cheaper, so only edges near the user get arrows.
  { selector: "edge.near", style: { "curve-style": "bezier" } },
  { selector: "node:selected", style: { "border-width": 3, "border-color": "#1f2933" } },
  { selector: "edge:selected", style: { "line-color": "#1f2933", "target-arrow-color": "#1f2933" } },
  { selector: ".path", style: { "background-color": "#d64545", "line-color": "#d64545" } },
  { selector: "edge.path", style: { width: 4, "target-arrow-color": "#d64545", "z-index": 10 } },
  { selector: "node.start", style: { "border-width": 3, "border-color": "#d64545" } },
];

function middleOf(box: { x1: number; x2: number; y1: number; y2: number }) {
  return { x: (box.x1 + box.x2) / 2, y: (box.y1 + box.y2) / 2 };
}

export class GraphCanvas {
  readonly cy: Core;

  constructor(container: HTMLElement, handlers: CanvasHandlers) {
    this.cy = cytoscape({
      container,
      style: STYLE as unknown as cytoscape.StylesheetJson,
      hideEdgesOnViewport: true,
      textureOnViewport: true,
      pixelRatio: 1,
      minZoom: 0.05,
      maxZoom: 4,
    });
    this.cy.on("tap", "node", (event: EventObject) => handlers.onNode(event.target.id()));
    this.cy.on("tap", "edge", (event: EventObject) => handlers.onEdge(event.target.id()));
  }

  /** Replace everything with `elements`; resolves once they are laid out (and the view fitted). */
  replace(elements: ElementData[]): Promise<void> {
    this.cy.batch(() => {
      this.cy.elements().remove();
      this.cy.add(elements as ElementDefinition[]);
    });
    this.markNear();
    const layout = this.cy.layout(layoutFor(this.cy.nodes().length) as unknown as cytoscape.LayoutOptions);
    const done = new Promise<void>((resolve) => {
      layout.one("layoutstop", () => {
        // A fit on two or three nodes zooms in until they fill the screen; stop at a readable size.
        if (this.cy.zoom() > MAX_FIT_ZOOM) {
          this.cy.zoom(MAX_FIT_ZOOM);
          this.cy.center();
        }
        resolve();
      });
    });
    layout.run();
    return done;
  }

  /** Add a node's new neighbours on a ring around it, leaving the rest where it is. */
  expand(centreKey: string, elements: ElementData[]): void {
    const centre = this.cy.getElementById(centreKey);
    const origin = centre.nonempty() ? centre.position() : { x: 0, y: 0 };
    const nodes = elements.filter((element) => element.group === "nodes");
    const drawn = this.cy.nodes();
    const middle = drawn.nonempty() ? middleOf(drawn.boundingBox()) : undefined;
    const ring = ringPositions(origin, nodes.length, middle);
    nodes.forEach((node, index) => {
      node.position = ring[index];
    });
    this.cy.batch(() => {
      this.cy.add(elements as ElementDefinition[]);
    });
    this.markNear();
  }

  /** Highlight a path's nodes and edges (clears the previous one). */
  highlight(nodeKeys: readonly string[], edgeIds: readonly string[]): void {
    this.cy.batch(() => {
      this.cy.elements(".path").removeClass("path");
      for (const key of nodeKeys) this.cy.getElementById(key).addClass("path");
      for (const id of edgeIds) this.cy.getElementById(id).addClass("path");
    });
  }

  markStart(key: string | null): void {
    this.cy.nodes(".start").removeClass("start");
    if (key) this.cy.getElementById(key).addClass("start");
  }

  /** Re-read where the container is: Cytoscape caches it, and panels above it may move it. */
  relocate(): void {
    this.cy.resize();
  }

  destroy(): void {
    this.cy.destroy();
  }

  // Small graphs get curved edges with arrows everywhere; large ones keep haystack lines.
  private markNear(): void {
    const edges = this.cy.edges();
    if (edges.length <= 300) edges.addClass("near");
  }
}
