import { useMemo, useState } from 'preact/hooks'
import type uPlot from 'uplot'
import { type ForecastSeries, api } from '../api.js'
import { Chart } from '../chart.js'
import { DataTable, ErrorNote, Screen, formatDate, formatQuantity, useLoad } from '../ui.js'

const HISTORY_COLOR = '#10243e'
const FORECAST_COLOR = '#0a4f9e'
const BAND_FILL = 'rgba(10, 79, 158, 0.15)'

const secondsOf = (date: string) => Date.parse(`${date}T12:00:00Z`) / 1000

/**
 * History and forecast on one time axis: usage up to the last fitted day, then the forecast with its band
 * (series 3 and 4 filled between). Days of the other part are gaps (null).
 */
/**
 * The history from the item's first sale on: the days before it were not zero demand but no item yet, and
 * the refit starts there too. Without any sale, the whole history.
 */
function historySinceFirstSale(series: ForecastSeries): ForecastSeries['history'] {
  const firstSale = series.history.findIndex((day) => day.quantity > 0)
  return firstSale < 0 ? series.history : series.history.slice(firstSale)
}

function forecastChart(series: ForecastSeries, shownHistory: ForecastSeries['history']): { options: Omit<uPlot.Options, 'width' | 'height'>; data: uPlot.AlignedData } {
  const gapFor = (length: number) => new Array<null>(length).fill(null)
  const history = shownHistory.map((day) => day.quantity)
  const forecast = series.forecast
  return {
    options: {
      scales: { x: { time: true } },
      axes: [{ label: 'Day' }, { label: `${series.unit}s a day`, size: 60 }],
      series: [
        {},
        { label: 'Used', stroke: HISTORY_COLOR, width: 2 },
        { label: 'Forecast', stroke: FORECAST_COLOR, width: 2, dash: [6, 4] },
        { label: 'Band high', stroke: 'transparent', points: { show: false } },
        { label: 'Band low', stroke: 'transparent', points: { show: false } },
      ],
      bands: [{ series: [3, 4], fill: BAND_FILL }],
    },
    data: [
      [...shownHistory.map((day) => secondsOf(day.date)), ...forecast.map((day) => secondsOf(day.date))],
      [...history, ...gapFor(forecast.length)],
      [...gapFor(history.length), ...forecast.map((day) => day.quantity)],
      [...gapFor(history.length), ...forecast.map((day) => day.high)],
      [...gapFor(history.length), ...forecast.map((day) => day.low)],
    ],
  }
}

export function ForecastScreen() {
  const forecasts = useLoad(() => api.forecasts({}), [])
  const [chosen, setChosen] = useState('')
  const itemId = chosen || forecasts.data?.forecasts[0]?.inventory_item_id || ''
  const series = useLoad(() => (itemId ? api.forecastSeries(itemId) : Promise.resolve(undefined)), [itemId])
  const history = useMemo(() => series.data && historySinceFirstSale(series.data), [series.data])
  const chart = useMemo(() => series.data && history && forecastChart(series.data, history), [series.data, history])
  const summary = forecasts.data?.forecasts.find((forecast) => forecast.inventory_item_id === itemId)

  return (
    <Screen title="Forecast">
      <ErrorNote error={forecasts.error} />
      {forecasts.data && (
        <div class="field">
          <label for="forecast-item">Item</label>
          <select id="forecast-item" value={itemId} onChange={(event) => setChosen(event.currentTarget.value)}>
            {forecasts.data.forecasts.map((forecast) => (
              <option key={forecast.inventory_item_id} value={forecast.inventory_item_id}>
                {forecast.name}
              </option>
            ))}
          </select>
        </div>
      )}
      {summary && (
        <p class="notice">
          {summary.recommendation} Confidence {Math.round(summary.confidence * 100)} %.
        </p>
      )}
      <ErrorNote error={series.error} />
      {series.data && history && chart && (
        <>
          <h2>
            {series.data.name}: daily use in {series.data.unit}s
          </h2>
          <Chart
            label={`Daily use of ${series.data.name} over ${history.length} days from ${history[0]?.date ?? 'none'}, then the forecast for ${series.data.forecast.length} days with its band; the table below has the figures.`}
            {...chart}
          />
          <p class="help">
            Solid: used, from the item’s first sale in the last {series.data.history.length} days. Dashed: forecast. Shaded: the band the back-test’s errors give. Fitted{' '}
            {formatDate(series.data.fitted_at)}.
          </p>
          <details>
            <summary>Forecast figures</summary>
            <DataTable columns={['Day', { label: 'Forecast', number: true }, { label: 'Band', number: true }]}>
              {series.data.forecast.map((day) => (
                <tr key={day.date}>
                  <th scope="row">{day.date}</th>
                  <td class="number">{formatQuantity(day.quantity)}</td>
                  <td class="number">
                    {formatQuantity(day.low)} to {formatQuantity(day.high)}
                  </td>
                </tr>
              ))}
            </DataTable>
          </details>
        </>
      )}
    </Screen>
  )
}
