import { dateInWords, listInWords, say } from '../../lib/host-messages.js';
import type { BackgroundResults, Section } from './types.js';

/** Who and what the report is about, as its title block says it. */
export interface ReportHeading {
  /** The person searched: name, and year of birth and country when given. */
  subject: { name: string; born: number | null; country: string | null };
  /** The account that ordered the check. */
  requestedBy: string;
}

const INK = '#1a1a1a';
const MUTED = '#5c5c5c';
const RULE = '#d0d0d0';
/** Colours a host reads at a glance, dark enough to print: green for clear, amber for a look. */
const OUTCOME = { CLEARED: { fill: '#e6f4ea', ink: '#1e6b34' }, REVIEW: { fill: '#fdf0dc', ink: '#8a4b00' } } as const;

/**
 * The background check as a document a host files: a title block (who was searched, for whom,
 * when, the report id), the outcome in words and colour, then one section per source with what
 * was searched, the data's date and each finding's evidence in words; every page has a footer
 * with its number and the report id.
 */
export async function renderReport(r: BackgroundResults, heading: ReportHeading): Promise<Buffer> {
  // pdfkit and its fonts take about 10 MB: loaded by the first report, not by every process.
  const { default: PDFDocument } = await import('pdfkit');
  const doc = new PDFDocument({
    size: 'A4',
    margins: { top: 56, bottom: 64, left: 56, right: 56 },
    bufferPages: true,
    info: { Title: `Background check report ${r.id}`, Author: heading.requestedBy, Producer: 'guestscreen' },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  const left = doc.page.margins.left;
  const width = doc.page.width - left - doc.page.margins.right;

  // Title block
  doc.font('Helvetica-Bold').fontSize(20).fillColor(INK).text(say('report.title'), left, doc.page.margins.top);
  doc
    .moveDown(0.2)
    .font('Helvetica')
    .fontSize(10)
    .fillColor(MUTED)
    .text(say('report.id', { id: r.id }));
  doc.moveDown(0.8);
  const s = heading.subject;
  const rows: [string, string][] = [
    [say('report.label.subject'), s.name],
    [say('report.label.born'), s.born ? String(s.born) : say('report.not_given')],
    [say('report.label.country'), s.country || say('report.not_given')],
    [say('report.label.searched'), listInWords(r.report_items.map((x) => x.name.toLowerCase()))],
    [say('report.label.requested_by'), heading.requestedBy],
    [say('report.label.ordered'), dateInWords(r.start_date, true)],
    [say('report.label.completed'), r.stop_date ? dateInWords(r.stop_date, true) : say('report.not_yet')],
  ];
  for (const [label, value] of rows) {
    const y = doc.y;
    doc.font('Helvetica').fontSize(10).fillColor(MUTED).text(label, left, y, { width: 120 });
    doc
      .font('Helvetica')
      .fontSize(10)
      .fillColor(INK)
      .text(value, left + 130, y, { width: width - 130 });
    doc.moveDown(0.25);
  }

  // Summary: the outcome in words and colour
  const review = r.report_items.filter((x) => x.status === 'REVIEW');
  const notRun = r.report_items.filter((x) => x.status === 'NOT_RUN');
  const outcome = r.risk_status === 'REVIEW' ? OUTCOME.REVIEW : OUTCOME.CLEARED;
  const headline = say(r.risk_status === 'REVIEW' ? 'report.outcome.review' : 'report.outcome.cleared');
  const sections = (list: Section[]) => listInWords(list.map((x) => x.name.toLowerCase()));
  const detail = [
    r.risk_status === 'REVIEW' ? say('report.outcome.review.detail', { sections: sections(review) }) : say('report.outcome.cleared.detail'),
    notRun.length ? say('report.outcome.not_searched', { sections: sections(notRun) }) : '',
  ]
    .filter(Boolean)
    .join(' ');
  doc.moveDown(0.8);
  const top = doc.y;
  doc.font('Helvetica').fontSize(10);
  const boxHeight = 30 + doc.heightOfString(detail, { width: width - 24 });
  doc.rect(left, top, width, boxHeight).fill(outcome.fill);
  doc.rect(left, top, 5, boxHeight).fill(outcome.ink);
  doc
    .font('Helvetica-Bold')
    .fontSize(13)
    .fillColor(outcome.ink)
    .text(headline, left + 14, top + 8, { width: width - 24 });
  doc
    .font('Helvetica')
    .fontSize(10)
    .fillColor(INK)
    .text(detail, left + 14, doc.y + 2, { width: width - 24 });
  doc.y = top + boxHeight + 14;

  for (const section of r.report_items) {
    if (doc.y > doc.page.height - doc.page.margins.bottom - 90) doc.addPage();
    doc.x = left;
    doc
      .moveTo(left, doc.y)
      .lineTo(left + width, doc.y)
      .lineWidth(0.5)
      .strokeColor(RULE)
      .stroke();
    doc.moveDown(0.5);
    doc.font('Helvetica-Bold').fontSize(13).fillColor(INK).text(section.name, left);
    doc
      .font('Helvetica')
      .fontSize(10)
      .fillColor(section.status === 'REVIEW' ? OUTCOME.REVIEW.ink : MUTED)
      .text(say(`report.status.${section.status}`));
    if (section.searched) doc.fillColor(MUTED).text(section.searched);
    doc.moveDown(0.4);
    if (section.items.length === 0 && section.status === 'CLEAR') doc.fillColor(INK).text(say('report.nothing_found'));
    for (const item of section.items) {
      doc
        .font('Helvetica-Bold')
        .fontSize(11)
        .fillColor(INK)
        .text(item.title, left + 10, doc.y, { width: width - 10 });
      doc.font('Helvetica').fontSize(9.5);
      if (item.subtitle) doc.fillColor(MUTED).text(item.subtitle, { width: width - 10 });
      if (item.description) doc.fillColor(INK).text(item.description, { width: width - 10 });
      doc.moveDown(0.5);
    }
    doc.moveDown(0.4);
  }
  doc.moveDown(0.5).x = left;
  doc.font('Helvetica').fontSize(8.5).fillColor(MUTED).text(say('report.caveat'), left, doc.y, { width });

  // Footer on every page: written last, when the page count is known.
  const range = doc.bufferedPageRange();
  for (let i = range.start; i < range.start + range.count; i++) {
    doc.switchToPage(i);
    const bottom = doc.page.margins.bottom;
    doc.page.margins.bottom = 0;
    const y = doc.page.height - 40;
    doc.font('Helvetica').fontSize(8).fillColor(MUTED);
    doc.text(say('report.footer', { id: r.id }), left, y, { width: width / 2, lineBreak: false });
    doc.text(say('report.page', { page: i - range.start + 1, pages: range.count }), left + width / 2, y, { width: width / 2, align: 'right', lineBreak: false });
    doc.page.margins.bottom = bottom;
  }
  doc.end();
  return done;
}
