import type { BackgroundResults } from './service.js';

/** The background check as a PDF a host can file: the subject, the verdict and every finding. */
export async function renderReport(r: BackgroundResults, subjectLine: string): Promise<Buffer> {
  // pdfkit and its fonts take about 10 MB: loaded by the first report, not by every process.
  const { default: PDFDocument } = await import('pdfkit');
  const doc = new PDFDocument({ size: 'A4', margin: 50, info: { Title: `Background check ${r.id}`, Producer: 'guestscreen' } });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  doc.fontSize(18).text('Background check');
  doc.moveDown(0.3).fontSize(10).fillColor('#555').text(`${r.id} · ${r.type} · started ${r.start_date} · finished ${r.stop_date ?? '-'}`);
  doc.moveDown().fillColor('#000').fontSize(12).text(subjectLine);
  doc.moveDown(0.5).fontSize(14).text(`Result: ${r.risk_status === 'CLEARED' ? 'CLEARED (nothing found that needs review)' : 'REVIEW (possible matches below)'}`);
  for (const section of r.report_items) {
    doc.moveDown().fontSize(13).fillColor('#000').text(`${section.name}: ${section.status}`);
    if (section.items.length === 0) doc.fontSize(10).fillColor('#555').text('No findings.');
    for (const item of section.items) {
      doc.moveDown(0.4).fontSize(11).fillColor('#000').text(item.title);
      if (item.subtitle) doc.fontSize(9).fillColor('#555').text(item.subtitle);
      if (item.description) doc.fontSize(9).fillColor('#000').text(item.description);
      if (item.tags.length) doc.fontSize(8).fillColor('#555').text(item.tags.join(' · '));
    }
  }
  doc.moveDown(2).fontSize(8).fillColor('#555').text('Possible matches are for a person to review: a shared name is not proof of identity. Sources and data dates are named beside each finding.');
  doc.end();
  return done;
}
