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
