// One day's allowed time as a grid of quarter hours: a row per hour, a cell per 15 minutes. Painted
// with a mouse or a finger (drag across cells; the hour labels stay free for scrolling on a phone) or
// with the keyboard (a roving focus cell: arrows move, Space or Enter toggles, Shift with an arrow
// paints the way it moves).
import { Text } from '@mantine/core';
import { type KeyboardEvent, type PointerEvent, useEffect, useRef, useState } from 'react';
import { CELLS_PER_DAY, CELLS_PER_HOUR, cellTime } from './schedule-model';

const HOURS = Array.from({ length: 24 }, (_, h) => h);
const QUARTERS = [0, 1, 2, 3];

export interface DayGridProps {
  /** "Monday": names the grid. */
  dayLabel: string;
  cells: boolean[];
  /** Sets every cell from `from` to `to` (either order, both included) to `value`. */
  onPaint(from: number, to: number, value: boolean): void;
  /** The id of the text that explains how to paint. */
  describedBy: string;
}

const clamp = (n: number) => Math.min(CELLS_PER_DAY - 1, Math.max(0, n));

export function DayGrid({ dayLabel, cells, onPaint, describedBy }: DayGridProps) {
  const [focus, setFocus] = useState(() => {
    const first = cells.indexOf(true);
    return first < 0 ? 0 : first;
  });
  const refs = useRef<(HTMLTableCellElement | null)[]>([]);
  const drag = useRef<{ value: boolean; last: number; pointerId: number } | null>(null);
  const moved = useRef(false);

  useEffect(() => {
    const end = () => {
      drag.current = null;
    };
    window.addEventListener('pointerup', end);
    window.addEventListener('pointercancel', end);
    return () => {
      window.removeEventListener('pointerup', end);
      window.removeEventListener('pointercancel', end);
    };
  }, []);

  useEffect(() => {
    if (moved.current) {
      refs.current[focus]?.focus();
      moved.current = false;
    }
  }, [focus]);

  const cellAt = (x: number, y: number): number | null => {
    const el = document.elementFromPoint(x, y)?.closest<HTMLElement>('[data-cell]');
    const value = el?.dataset.cell;
    return value === undefined ? null : Number(value);
  };

  const onPointerDown = (e: PointerEvent<HTMLTableElement>) => {
    const cell = cellAt(e.clientX, e.clientY);
    if (cell === null || (e.pointerType === 'mouse' && e.button !== 0)) return;
    e.preventDefault();
    const value = !cells[cell];
    drag.current = { value, last: cell, pointerId: e.pointerId };
    onPaint(cell, cell, value);
    setFocus(cell);
    refs.current[cell]?.focus();
  };

  const onPointerMove = (e: PointerEvent<HTMLTableElement>) => {
    const current = drag.current;
    if (!current || current.pointerId !== e.pointerId) return;
    const cell = cellAt(e.clientX, e.clientY);
    if (cell === null || cell === current.last) return;
    onPaint(current.last, cell, current.value);
    current.last = cell;
    setFocus(cell);
  };

  const onKeyDown = (e: KeyboardEvent<HTMLTableElement>) => {
    const rowStart = focus - (focus % CELLS_PER_HOUR);
    const moves: Record<string, number> = {
      ArrowRight: focus + 1,
      ArrowLeft: focus - 1,
      ArrowDown: focus + CELLS_PER_HOUR,
      ArrowUp: focus - CELLS_PER_HOUR,
      Home: e.ctrlKey ? 0 : rowStart,
      End: e.ctrlKey ? CELLS_PER_DAY - 1 : rowStart + CELLS_PER_HOUR - 1,
      PageDown: focus + CELLS_PER_HOUR * 4,
      PageUp: focus - CELLS_PER_HOUR * 4,
    };
    if (e.key in moves) {
      e.preventDefault();
      const next = clamp(moves[e.key] ?? focus);
      if (e.shiftKey && next !== focus) onPaint(focus, next, !!cells[focus]);
      moved.current = true;
      setFocus(next);
      return;
    }
    if (e.key === ' ' || e.key === 'Enter') {
      e.preventDefault();
      onPaint(focus, focus, !cells[focus]);
    }
  };

  return (
    <table
      // biome-ignore lint/a11y/noNoninteractiveElementToInteractiveRole: a table with the grid role is the WAI-ARIA pattern for an editable grid
      role="grid"
      aria-label={`Allowed time on ${dayLabel}`}
      aria-describedby={describedBy}
      aria-multiselectable="true"
      className="hearth-daygrid"
      onPointerDown={onPointerDown}
      onPointerMove={onPointerMove}
      onKeyDown={onKeyDown}
      data-testid="day-grid"
    >
      <thead>
        <tr>
          <th scope="col" className="hearth-daygrid-hour">
            <Text size="xs" c="dimmed" span>
              Hour
            </Text>
          </th>
          {QUARTERS.map((q) => (
            <th scope="col" key={q} className="hearth-daygrid-colhead">
              <Text size="xs" c="dimmed" span>
                :{String(q * 15).padStart(2, '0')}
              </Text>
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {HOURS.map((h) => (
          <tr key={h}>
            <th scope="row" className="hearth-daygrid-hour">
              <Text size="xs" c="dimmed" ff="monospace" span>
                {cellTime(h * CELLS_PER_HOUR)}
              </Text>
            </th>
            {QUARTERS.map((q) => {
              const cell = h * CELLS_PER_HOUR + q;
              const on = !!cells[cell];
              return (
                <td
                  key={q}
                  // biome-ignore lint/a11y/noNoninteractiveElementToInteractiveRole: the cells of an editable grid (WAI-ARIA grid pattern)
                  role="gridcell"
                  ref={(el) => {
                    refs.current[cell] = el;
                  }}
                  tabIndex={cell === focus ? 0 : -1}
                  aria-selected={on}
                  aria-label={`${cellTime(cell)} to ${cellTime(cell + 1)}`}
                  data-cell={cell}
                  data-on={on || undefined}
                  className="hearth-daygrid-cell"
                  onFocus={() => setFocus(cell)}
                />
              );
            })}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
