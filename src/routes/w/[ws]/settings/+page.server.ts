// The settings page: its sections (api/settings/page.ts) and its forms (api/settings/forms.ts),
// each form under the page's gate.
import { pageGrant } from '$lib/server/access';
import * as forms from '$lib/server/api/settings/forms';
import { settingsPage } from '$lib/server/api/settings/page';
import type { Actions, PageServerLoad } from './$types';

export const load: PageServerLoad = async (event) => settingsPage(await pageGrant(event, event.params.ws));

/** One action: the caller's grant in the workspace and the form, then the form's call. */
const withForm = <T>(run: forms.SettingsForm<T>) => async (event: Parameters<Actions[string]>[0]) => run(await pageGrant(event, event.params.ws), await event.request.formData(), event);

export const actions: Actions = {
	changePassword: withForm(forms.changePassword),
	fork: withForm(forms.fork),
	addMember: withForm(forms.addMember),
	removeMember: withForm(forms.removeMember),
	saveGroup: withForm(forms.saveGroup),
	saveFolder: withForm(forms.saveFolder),
	saveWarehouse: withForm(forms.saveWarehouse),
	saveWarehouseJson: withForm(forms.saveWarehouseJson),
	saveNamespace: withForm(forms.saveNamespace),
	mintToken: withForm(forms.mintToken),
	revokeToken: withForm(forms.revokeToken)
};
