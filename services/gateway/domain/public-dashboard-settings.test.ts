import { describe, expect, it } from 'vitest';
import {
  ConfigRefusal,
  type DeploymentConfig,
  parseDeploymentConfig,
} from '../../../shared/programs/domain/deployment-config.js';
import { programTitle, publicDashboardSettings } from './public-dashboard-settings.js';

const TODAY = '2026-05-06';

function config(fields: Record<string, unknown>): DeploymentConfig {
  const parsed = parseDeploymentConfig(JSON.stringify({ version: 1, ...fields }));
  if (parsed instanceof ConfigRefusal) throw new TypeError(parsed.message);
  return parsed;
}

describe('a program’s public dashboard settings', () => {
  it('When the configuration says nothing, then every section shows, twelve weeks to today, testers left out', () => {
    expect(publicDashboardSettings(config({}), TODAY)).toEqual({
      sections: ['trips', 'distance', 'mode_share', 'labelled_share', 'footprint'],
      weeks: 12,
      endDate: TODAY,
      includeTesters: false,
    });
  });

  it('When the program picks sections, then they show in the dashboard’s own order, with its weeks and end', () => {
    const settings = publicDashboardSettings(
      config({
        metrics: { include_test_users: true },
        itinera: { public_dashboard: { sections: ['footprint', 'trips'], weeks: 4, end_date: '2016-08-14' } },
      }),
      TODAY,
    );
    expect(settings).toEqual({
      sections: ['trips', 'footprint'],
      weeks: 4,
      endDate: '2016-08-14',
      includeTesters: true,
    });
  });

  it('When the end named is still to come, then the dashboard ends today', () => {
    const settings = publicDashboardSettings(
      config({ itinera: { public_dashboard: { end_date: '2099-01-01' } } }),
      TODAY,
    );
    expect(settings?.endDate).toBe(TODAY);
  });

  it('When the dashboard is turned off, or the program hides its aggregates, then there is none', () => {
    expect(
      publicDashboardSettings(config({ itinera: { public_dashboard: { enabled: false } } }), TODAY),
    ).toBeUndefined();
    expect(publicDashboardSettings(config({ itinera: { public_aggregates: false } }), TODAY)).toBeUndefined();
    const both = config({ itinera: { public_aggregates: false, public_dashboard: { enabled: true } } });
    expect(publicDashboardSettings(both, TODAY)).toBeUndefined();
  });

  it('When a document names an unknown section, an unknown key, too many weeks or a date that is none, then it is refused by field', () => {
    const refused = (dashboard: unknown) => {
      const parsed = parseDeploymentConfig(JSON.stringify({ version: 1, itinera: { public_dashboard: dashboard } }));
      return parsed instanceof ConfigRefusal ? parsed.message : 'accepted';
    };
    expect(refused({ sections: ['heatmap'] })).toMatch(/^itinera\.public_dashboard\.sections\.0: /);
    expect(refused({ sections: [] })).toMatch(/^itinera\.public_dashboard\.sections: /);
    expect(refused({ colour: 'red' })).toMatch(/^itinera\.public_dashboard: .*colour/);
    expect(refused({ weeks: 53 })).toMatch(/^itinera\.public_dashboard\.weeks: /);
    expect(refused({ end_date: '2016-02-30' })).toMatch(/^itinera\.public_dashboard\.end_date: /);
    expect(refused({ enabled: true, sections: ['trips'], weeks: 52, end_date: '2016-02-29' })).toBe('accepted');
  });

  it('When the app’s deployment name is given, then the dashboard is titled with it, else with the program', () => {
    const named = config({ intro: { translated_text: { en: { deployment_name: 'Ride Study' } } } });
    expect(programTitle(named, 'ride')).toBe('Ride Study');
    expect(programTitle(config({}), 'ride')).toBe('ride');
  });
});
