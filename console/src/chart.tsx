import { useEffect, useRef } from 'preact/hooks'
import uPlot from 'uplot'
import 'uplot/dist/uPlot.min.css'

/**
 * A uPlot chart sized to its container. Charts are pictures of a table shown beside them: the chart is
 * an image with a label for screen readers, the table carries the numbers.
 */
export function Chart({ label, options, data }: { label: string; options: Omit<uPlot.Options, 'width' | 'height'>; data: uPlot.AlignedData }) {
  const container = useRef<HTMLDivElement>(null)
  useEffect(() => {
    const element = container.current!
    const width = () => Math.max(280, element.clientWidth)
    const plot = new uPlot({ ...options, width: width(), height: 280 }, data, element)
    const observer = new ResizeObserver(() => plot.setSize({ width: width(), height: 280 }))
    observer.observe(element)
    return () => {
      observer.disconnect()
      plot.destroy()
    }
  }, [options, data])
  return <div class="chart" ref={container} role="img" aria-label={label} />
}

/** A bar chart of one value per label (x is the label's index). */
export function barChart(labels: string[], seriesLabel: string, color: string): Omit<uPlot.Options, 'width' | 'height'> {
  return {
    // Bars stand on zero, whatever the smallest value.
    scales: { x: { time: false, range: [-0.5, labels.length - 0.5] }, y: { range: (_plot, _min, max) => [0, max > 0 ? max * 1.1 : 1] } },
    axes: [
      { values: (_plot, ticks) => ticks.map((tick) => (Number.isInteger(tick) ? shorten(labels[tick] ?? '') : '')), incrs: [1], size: 60 },
      { size: 60 },
    ],
    legend: { show: false },
    cursor: { show: false },
    series: [{}, { label: seriesLabel, fill: color, stroke: color, paths: uPlot.paths.bars!({ size: [0.6, 80] }), points: { show: false } }],
  }
}

function shorten(text: string): string {
  return text.length > 16 ? `${text.slice(0, 15)}…` : text
}
