import { BarChart as EBar } from 'echarts/charts';
import { GridComponent, LegendComponent, TooltipComponent } from 'echarts/components';
import * as echarts from 'echarts/core';
import { CanvasRenderer } from 'echarts/renderers';
import { type ReactNode, useEffect, useRef } from 'react';

// Only what the bar charts use, so the area chunk carries a fraction of echarts.
echarts.use([EBar, GridComponent, TooltipComponent, LegendComponent, CanvasRenderer]);

export interface BarSeries {
  name: string;
  values: number[];
}

/**
 * A bar chart (categories × series) drawn on a canvas, hidden from screen readers: the caller puts
 * the same figures beside it as a table (`children`), which is the text alternative.
 */
export function BarChart({ title, categories, series, children, id }: { title: string; categories: string[]; series: BarSeries[]; children: ReactNode; id: string }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const chart = echarts.init(el, undefined, { renderer: 'canvas' });
    chart.setOption({
      animation: false,
      tooltip: { trigger: 'axis' },
      legend: series.length > 1 ? { top: 0 } : undefined,
      grid: { left: 8, right: 8, top: series.length > 1 ? 32 : 12, bottom: 8, containLabel: true },
      xAxis: { type: 'category', data: categories, axisLabel: { interval: 0, overflow: 'truncate', width: 110 } },
      yAxis: { type: 'value' },
      series: series.map((s) => ({ type: 'bar', name: s.name, data: s.values })),
    });
    const resize = () => chart.resize();
    addEventListener('resize', resize);
    return () => {
      removeEventListener('resize', resize);
      chart.dispose();
    };
  }, [categories, series]);
  return (
    <figure className="chart-figure" aria-labelledby={`${id}-caption`}>
      <figcaption id={`${id}-caption`}>{title}</figcaption>
      <div ref={box} className="chart" aria-hidden="true" data-testid={`${id}-chart`} />
      {children}
    </figure>
  );
}
